import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { decodeSnowflake } from '../../common/snowflake/snowflake';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import { EventName } from '../../infra/events/realtime-event';
import { AttachmentSweeper } from './attachments/attachment-sweeper';
import { GuildAccessService, type ChannelAccess } from './guild-access.service';
import type { MessagePinsResponse, MessageResponse } from './guild.response';
import { MessageEntity } from './message.entity';
import { MessageRenderer } from './message-renderer';
import { messageEvent } from './messages.service';
import { Permissions } from './permissions';

/** Pinned messages a channel holds at most (Discord's limit). */
export const MAX_PINS = 50;
/** Bulk delete takes messages younger than this (Discord's rule). */
const BULK_DELETE_MAX_AGE_MS = 14 * 24 * 3600 * 1000;

const READ = Permissions.VIEW_CHANNEL | Permissions.READ_MESSAGE_HISTORY;
const MODERATE = Permissions.VIEW_CHANNEL | Permissions.MANAGE_MESSAGES;

/**
 * What moderators do to messages of a channel: pin and unpin them (50 per channel; MESSAGE_UPDATE
 * and CHANNEL_PINS_UPDATE) and delete many at once (MESSAGE_DELETE_BULK). Part of the messages
 * aggregate: every write here publishes its event in its transaction, as MessagesService does.
 */
@Injectable()
export class MessageModerationService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: GuildAccessService,
    private readonly events: RealtimeEvents,
    private readonly renderer: MessageRenderer,
    private readonly sweeper: AttachmentSweeper,
  ) {}

  /** Pins a message (MANAGE_MESSAGES); pinning a pinned one changes nothing. */
  async pin(userId: string, channelId: string, messageId: string): Promise<void> {
    const access = await this.access.requireChannelPermission(userId, channelId, MODERATE);
    await this.dataSource.transaction(async (m) => {
      // Pins of a channel are counted under its lock: two pins never both take the 50th place.
      await m.query('SELECT 1 FROM channels WHERE id = $1 FOR UPDATE', [channelId]);
      const message = await this.lockMessage(m, channelId, messageId);
      if (message.pinnedAt) return;
      const [{ n }] = await m.query<Array<{ n: number }>>(
        'SELECT count(*)::int AS n FROM messages WHERE channel_id = $1 AND pinned_at IS NOT NULL',
        [channelId],
      );
      if (n >= MAX_PINS) throw new ApiError(ErrorCode.MaxPinsReached);
      message.pinnedAt = new Date();
      await this.pinChanged(m, access, message);
    });
  }

  /** Unpins a message (MANAGE_MESSAGES); unpinning one that is not pinned changes nothing. */
  async unpin(userId: string, channelId: string, messageId: string): Promise<void> {
    const access = await this.access.requireChannelPermission(userId, channelId, MODERATE);
    await this.dataSource.transaction(async (m) => {
      const message = await this.lockMessage(m, channelId, messageId);
      if (!message.pinnedAt) return;
      message.pinnedAt = null;
      await this.pinChanged(m, access, message);
    });
  }

  /** The channel's pinned messages, newest pin first (Discord's older route: all of them). */
  async pinnedMessages(userId: string, channelId: string): Promise<MessageResponse[]> {
    const page = await this.pins(userId, channelId, undefined, MAX_PINS);
    return page.items.map((item) => item.message);
  }

  /** A page of pins made before `before`, newest first (Discord's newer route). */
  async pins(
    userId: string,
    channelId: string,
    before: string | undefined,
    limit: number,
  ): Promise<MessagePinsResponse> {
    const access = await this.access.requireChannelPermission(userId, channelId, READ);
    const m = this.dataSource.manager;
    const qb = m
      .getRepository(MessageEntity)
      .createQueryBuilder('msg')
      .leftJoinAndSelect('msg.author', 'author')
      .where('msg.channel_id = :channelId AND msg.pinned_at IS NOT NULL', { channelId })
      .orderBy('msg.pinned_at', 'DESC')
      .addOrderBy('msg.id', 'DESC')
      .limit(limit + 1);
    if (before !== undefined) qb.andWhere('msg.pinned_at < :before', { before: new Date(before) });
    const rows = await qb.getMany();
    const page = rows.slice(0, limit);
    const messages = await this.renderer.render(m, access.guildId, page, userId);
    return {
      items: page.map((row, i) => ({
        pinned_at: (row.pinnedAt as Date).toISOString(),
        message: messages[i],
      })),
      has_more: rows.length > limit,
    };
  }

  /**
   * Deletes 2–100 messages of the channel at once (MANAGE_MESSAGES): one MESSAGE_DELETE_BULK
   * with the ids that were there. Any id older than 14 days refuses the whole request (400).
   */
  async bulkDelete(userId: string, channelId: string, ids: string[]): Promise<void> {
    const access = await this.access.requireChannelPermission(userId, channelId, MODERATE);
    const unique = [...new Set(ids)];
    const oldest = Date.now() - BULK_DELETE_MAX_AGE_MS;
    if (unique.some((id) => decodeSnowflake(id).timestamp.getTime() < oldest)) {
      throw new ApiError(ErrorCode.BulkDeleteTooOld);
    }
    await this.dataSource.transaction(async (m) => {
      // TypeORM answers a DELETE … RETURNING with [rows, affected].
      const [rows] = await m.query<[Array<{ id: string }>, number]>(
        `DELETE FROM messages WHERE channel_id = $1 AND id = ANY($2::bigint[])
          RETURNING id::text AS id`,
        [channelId, unique],
      );
      if (rows.length === 0) return;
      await this.events.publish(m, [
        {
          t: EventName.MessageDeleteBulk,
          guildId: access.guildId,
          channelId,
          d: { ids: rows.map((r) => r.id), channel_id: channelId, guild_id: access.guildId },
        },
      ]);
      await this.sweeper.enqueue(m);
    });
  }

  /** A message of the channel, locked (404 UNKNOWN_MESSAGE when it is not there). */
  private async lockMessage(
    m: EntityManager,
    channelId: string,
    messageId: string,
  ): Promise<MessageEntity> {
    const message = await m
      .getRepository(MessageEntity)
      .createQueryBuilder('msg')
      .leftJoinAndSelect('msg.author', 'author')
      .where('msg.id = :messageId AND msg.channel_id = :channelId', { messageId, channelId })
      .setLock('pessimistic_write', undefined, ['msg'])
      .getOne();
    if (!message) throw new ApiError(ErrorCode.UnknownMessage);
    return message;
  }

  /** Writes the pin state and announces it: the message, and the channel's newest pin. */
  private async pinChanged(
    m: EntityManager,
    access: ChannelAccess,
    message: MessageEntity,
  ): Promise<void> {
    await m.update(MessageEntity, { id: message.id }, { pinnedAt: message.pinnedAt });
    const [{ last }] = await m.query<Array<{ last: Date | null }>>(
      'SELECT max(pinned_at) AS last FROM messages WHERE channel_id = $1',
      [access.channelId],
    );
    const [out] = await this.renderer.render(m, access.guildId, [message]);
    await this.events.publish(m, [
      messageEvent(EventName.MessageUpdate, access.guildId, out),
      {
        t: EventName.ChannelPinsUpdate,
        guildId: access.guildId,
        channelId: access.channelId,
        d: {
          guild_id: access.guildId,
          channel_id: access.channelId,
          last_pin_timestamp: last ? last.toISOString() : null,
        },
      },
    ]);
  }
}
