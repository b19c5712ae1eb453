import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { RealtimeEvents } from '../../../infra/events/realtime-events';
import { EventName, type RealtimeEvent } from '../../../infra/events/realtime-event';
import { MessageEntity } from '../message.entity';
import { MessageRenderer } from '../message-renderer';
import { messageEvent } from '../messages.service';
import { AttachmentSweeper } from './attachment-sweeper';

/** Messages rewritten (and announced) per round of a purge. */
const MESSAGE_CHUNK = 200;

/** What a purge took: files sent to deletion, their bytes, and the messages that lost some. */
export interface AttachmentPurgeOutcome {
  attachments: number;
  bytes: number;
  messages: number;
}

type Subject = 'uploader_id' | 'guild_id';

/**
 * Takes every file of an uploader or of a guild off its message and sends it to deletion (the
 * admin purges), in the caller's transaction: each message loses those entries of
 * `messages.attachments` and is announced (MESSAGE_UPDATE, as it reads now), the rows lose their
 * message and their expiry — due for deletion — and a sweep is enqueued (AttachmentSweeper
 * deletes the blobs once the transaction commits). Uploads not attached yet go too; one still
 * arriving (`stored` false) is left to finish, then to expire.
 *
 * Messages are locked before their attachment rows, the order a message edit takes them in.
 */
@Injectable()
export class AttachmentPurge {
  constructor(
    private readonly events: RealtimeEvents,
    private readonly renderer: MessageRenderer,
    private readonly sweeper: AttachmentSweeper,
  ) {}

  /** Every file `userId` uploaded, in any guild. */
  byUploader(m: EntityManager, userId: string): Promise<AttachmentPurgeOutcome> {
    return this.purge(m, 'uploader_id', userId);
  }

  /** Every file posted in the guild's channels, whoever uploaded it. */
  byGuild(m: EntityManager, guildId: string): Promise<AttachmentPurgeOutcome> {
    return this.purge(m, 'guild_id', guildId);
  }

  private async purge(
    m: EntityManager,
    subject: Subject,
    id: string,
  ): Promise<AttachmentPurgeOutcome> {
    const outcome: AttachmentPurgeOutcome = { attachments: 0, bytes: 0, messages: 0 };
    for (;;) {
      const messageIds = (
        await m.query<Array<{ id: string }>>(
          `SELECT id::text AS id FROM messages
            WHERE id IN (SELECT DISTINCT message_id FROM attachments
                          WHERE ${subject} = $1 AND message_id IS NOT NULL LIMIT $2)
            ORDER BY id FOR UPDATE`,
          [id, MESSAGE_CHUNK],
        )
      ).map((r) => r.id);
      if (messageIds.length === 0) break;
      // TypeORM answers an UPDATE … RETURNING with [rows, affected].
      const [files] = await m.query<[Array<{ id: string; size: string }>, number]>(
        `UPDATE attachments SET message_id = NULL, expires_at = NULL
          WHERE ${subject} = $1 AND message_id = ANY($2::bigint[])
          RETURNING id::text AS id, size::text AS size`,
        [id, messageIds],
      );
      outcome.attachments += files.length;
      outcome.bytes += files.reduce((sum, f) => sum + Number(f.size), 0);
      outcome.messages += await this.dropFromMessages(
        m,
        messageIds,
        files.map((f) => f.id),
      );
    }
    // Uploads waiting for a message (or past their expiry, not swept yet): due now.
    const [pending] = await m.query<[Array<{ size: string }>, number]>(
      `UPDATE attachments SET expires_at = NULL
        WHERE ${subject} = $1 AND message_id IS NULL AND expires_at IS NOT NULL AND stored
        RETURNING size::text AS size`,
      [id],
    );
    outcome.attachments += pending.length;
    outcome.bytes += pending.reduce((sum, f) => sum + Number(f.size), 0);
    await this.sweeper.enqueue(m);
    return outcome;
  }

  /** Removes the files from the messages' `attachments` and announces each message changed. */
  private async dropFromMessages(
    m: EntityManager,
    messageIds: string[],
    attachmentIds: string[],
  ): Promise<number> {
    const [changed] = await m.query<[Array<{ id: string }>, number]>(
      `UPDATE messages msg
          SET attachments = coalesce(
                (SELECT jsonb_agg(x.a ORDER BY x.n)
                   FROM jsonb_array_elements(msg.attachments) WITH ORDINALITY AS x(a, n)
                  WHERE NOT (x.a->>'id' = ANY($2::text[]))),
                '[]'::jsonb)
        WHERE msg.id = ANY($1::bigint[])
          AND EXISTS (SELECT 1 FROM jsonb_array_elements(msg.attachments) a
                       WHERE a->>'id' = ANY($2::text[]))
        RETURNING msg.id::text AS id`,
      [messageIds, attachmentIds],
    );
    if (changed.length === 0) return 0;
    const rows = await m
      .getRepository(MessageEntity)
      .createQueryBuilder('msg')
      .leftJoinAndSelect('msg.author', 'author')
      .where('msg.id IN (:...ids)', { ids: changed.map((r) => r.id) })
      .orderBy('msg.id')
      .getMany();
    const guilds = await m.query<Array<{ id: string; guild_id: string }>>(
      'SELECT id::text AS id, guild_id::text AS guild_id FROM channels WHERE id = ANY($1::bigint[])',
      [[...new Set(rows.map((r) => r.channelId))]],
    );
    const guildOf = new Map(guilds.map((c) => [c.id, c.guild_id]));
    const byGuild = new Map<string, MessageEntity[]>();
    for (const row of rows) {
      const guildId = guildOf.get(row.channelId) as string;
      byGuild.set(guildId, [...(byGuild.get(guildId) ?? []), row]);
    }
    const events: RealtimeEvent[] = [];
    for (const [guildId, messages] of byGuild) {
      for (const out of await this.renderer.render(m, guildId, messages)) {
        events.push(messageEvent(EventName.MessageUpdate, guildId, out));
      }
    }
    await this.events.publish(m, events);
    return changed.length;
  }
}
