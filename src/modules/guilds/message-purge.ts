import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SNOWFLAKE_EPOCH } from '../../common/snowflake/snowflake';
import { EventName, type RealtimeEvent } from '../../infra/events/realtime-event';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import { AttachmentSweeper } from './attachments/attachment-sweeper';

/** Ids per MESSAGE_DELETE_BULK (Discord's bulk delete takes at most 100 at a time). */
const IDS_PER_EVENT = 100;

/**
 * Deletes a user's recent messages across a guild (a ban's `delete_message_seconds`), for
 * MessagesService: one statement, announced as MESSAGE_DELETE_BULK per channel. Their files go
 * with them (AttachmentSweeper), as those of MessagesService's single deletes (`filesFollow`).
 */
@Injectable()
export class MessagePurge {
  constructor(
    private readonly events: RealtimeEvents,
    private readonly sweeper: AttachmentSweeper,
  ) {}

  /** Messages were deleted in `m`'s transaction: their files are swept once it commits. */
  filesFollow(m: EntityManager): Promise<void> {
    return this.sweeper.enqueue(m);
  }

  /** The messages `authorId` wrote in the guild's channels since `since`; returns how many. */
  async byAuthorSince(
    m: EntityManager,
    guildId: string,
    authorId: string,
    since: Date,
  ): Promise<number> {
    // Ids grow with time: the first id of `since` bounds the (channel_id, id) index scan.
    const lowest = (BigInt(since.getTime()) - SNOWFLAKE_EPOCH) << 22n;
    // TypeORM answers a DELETE … RETURNING with [rows, affected].
    const [rows] = await m.query<[Array<{ id: string; channel_id: string }>, number]>(
      `DELETE FROM messages msg USING channels c
        WHERE c.guild_id = $1 AND msg.channel_id = c.id AND msg.id >= $3
          AND msg.author_id = $2 AND msg.webhook_id IS NULL
        RETURNING msg.id::text AS id, msg.channel_id::text AS channel_id`,
      [guildId, authorId, (lowest > 0n ? lowest : 0n).toString()],
    );
    const byChannel = new Map<string, string[]>();
    for (const row of rows) {
      const ids = byChannel.get(row.channel_id);
      if (ids) ids.push(row.id);
      else byChannel.set(row.channel_id, [row.id]);
    }
    const events: RealtimeEvent[] = [];
    for (const [channelId, ids] of byChannel) {
      for (let i = 0; i < ids.length; i += IDS_PER_EVENT) {
        events.push({
          t: EventName.MessageDeleteBulk,
          guildId,
          channelId,
          d: { ids: ids.slice(i, i + IDS_PER_EVENT), channel_id: channelId, guild_id: guildId },
        });
      }
    }
    if (events.length > 0) await this.events.publish(m, events);
    await this.filesFollow(m);
    return rows.length;
  }
}
