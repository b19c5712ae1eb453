import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { ApiError } from '../../../common/errors/api-error';
import { ErrorCode } from '../../../common/errors/error-code';
import { RealtimeEvents } from '../../../infra/events/realtime-events';
import type { RealtimeEvent } from '../../../infra/events/realtime-event';
import { UserEntity } from '../../users/user.entity';
import { toUserPartial } from '../../users/user.mapper';
import type { UserPartialResponse } from '../../users/user.response';
import { GuildAccessService, type ChannelAccess } from '../guild-access.service';
import { GuildMembersService } from '../guild-members.service';
import { MessagesService } from '../messages.service';
import { hasPermission, Permissions } from '../permissions';
import type { ListReactionsQueryDto } from './dto/list-reactions.dto';
import { MAX_EMOJI_PER_MESSAGE, requireUnicodeEmoji } from './emoji';
import {
  reactionAdded,
  reactionRemoved,
  reactionsRemovedAll,
  reactionsRemovedForEmoji,
  type ReactionPlace,
} from './reaction-events';
import { MessageReactionEntity } from './message-reaction.entity';

/** Where a reaction route points: the caller, the channel and the message. */
export interface ReactionTarget {
  userId: string;
  channelId: string;
  messageId: string;
}

export const DEFAULT_REACTORS_LIMIT = 25;
/** Get Reactions' `type` for super reactions, which Parley does not have. */
const SUPER_REACTIONS = 1;

const READ = Permissions.VIEW_CHANNEL | Permissions.READ_MESSAGE_HISTORY;

/**
 * The one owner of reactions (Discord's rules): reacting needs READ_MESSAGE_HISTORY, and
 * ADD_REACTIONS too when the emoji is not on the message yet; anyone removes their own reaction,
 * MANAGE_MESSAGES removes anyone's. Every change publishes its event in its transaction; a
 * change that changes nothing (a second identical reaction, removing one that is not there)
 * succeeds silently, without an event.
 */
@Injectable()
export class ReactionsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: GuildAccessService,
    private readonly messages: MessagesService,
    private readonly members: GuildMembersService,
    private readonly events: RealtimeEvents,
  ) {}

  async add(target: ReactionTarget, rawEmoji: string): Promise<void> {
    const emoji = requireUnicodeEmoji(rawEmoji);
    const access = await this.channelAccess(target, READ);
    // The reactor as the event shows them, read before the message is locked (less time held).
    const member = await this.members.findMember(
      this.dataSource.manager,
      access.guildId,
      target.userId,
    );
    if (!member) throw new ApiError(ErrorCode.UnknownChannel);
    await this.dataSource.transaction(async (m) => {
      // Locked: concurrent reactions count the message's distinct emoji one after the other.
      const [message] = await m.query<Array<{ author: string | null }>>(
        `SELECT COALESCE(author_id, webhook_id)::text AS author FROM messages
          WHERE id = $1 AND channel_id = $2 FOR UPDATE`,
        [target.messageId, target.channelId],
      );
      if (!message) throw new ApiError(ErrorCode.UnknownMessage);
      const [state] = await m.query<Array<{ kinds: number; present: boolean; mine: boolean }>>(
        `SELECT count(DISTINCT emoji)::int AS kinds, COALESCE(bool_or(emoji = $2), false) AS present,
                COALESCE(bool_or(emoji = $2 AND user_id = $3), false) AS mine
           FROM message_reactions WHERE message_id = $1`,
        [target.messageId, emoji, target.userId],
      );
      if (state.mine) return;
      if (!state.present) {
        if (!hasPermission(access.permissions, Permissions.ADD_REACTIONS)) {
          throw new ApiError(ErrorCode.MissingPermissions);
        }
        if (state.kinds >= MAX_EMOJI_PER_MESSAGE) throw new ApiError(ErrorCode.MaxReactions);
      }
      await m
        .getRepository(MessageReactionEntity)
        .insert({ messageId: target.messageId, emoji, userId: target.userId });
      const place = this.placeOf(access, target);
      await this.events.publish(m, [reactionAdded(place, emoji, member, message.author)]);
    });
  }

  /** Removes `userId`'s reaction: the caller's own, or with MANAGE_MESSAGES anyone's. */
  async remove(target: ReactionTarget, rawEmoji: string, userId: string): Promise<void> {
    const emoji = requireUnicodeEmoji(rawEmoji);
    const own = userId === target.userId;
    const access = await this.channelAccess(
      target,
      Permissions.VIEW_CHANNEL | (own ? 0n : Permissions.MANAGE_MESSAGES),
    );
    await this.removeWhere(target, 'emoji = $2 AND user_id = $3', [emoji, userId], () =>
      reactionRemoved(this.placeOf(access, target), emoji, userId),
    );
  }

  /** Every reaction of the message (MANAGE_MESSAGES). */
  async removeAll(target: ReactionTarget): Promise<void> {
    const access = await this.channelAccess(
      target,
      Permissions.VIEW_CHANNEL | Permissions.MANAGE_MESSAGES,
    );
    await this.removeWhere(target, 'true', [], () =>
      reactionsRemovedAll(this.placeOf(access, target)),
    );
  }

  /** Every reaction of the message with one emoji (MANAGE_MESSAGES). */
  async removeEmoji(target: ReactionTarget, rawEmoji: string): Promise<void> {
    const emoji = requireUnicodeEmoji(rawEmoji);
    const access = await this.channelAccess(
      target,
      Permissions.VIEW_CHANNEL | Permissions.MANAGE_MESSAGES,
    );
    await this.removeWhere(target, 'emoji = $2', [emoji], () =>
      reactionsRemovedForEmoji(this.placeOf(access, target), emoji),
    );
  }

  /** Who reacted with the emoji, in user id order after `after` (Discord's Get Reactions). */
  async reactors(
    target: ReactionTarget,
    rawEmoji: string,
    page: ListReactionsQueryDto,
  ): Promise<UserPartialResponse[]> {
    const emoji = requireUnicodeEmoji(rawEmoji);
    await this.channelAccess(target, READ);
    const m = this.dataSource.manager;
    await this.messages.findInChannel(m, target.channelId, target.messageId);
    if (page.type === SUPER_REACTIONS) return [];
    const users = await m
      .getRepository(UserEntity)
      .createQueryBuilder('u')
      .innerJoin(MessageReactionEntity, 'r', 'r.user_id = u.id')
      .where('r.message_id = :messageId AND r.emoji = :emoji AND r.user_id > :after', {
        messageId: target.messageId,
        emoji,
        after: page.after ?? '0',
      })
      .orderBy('r.user_id', 'ASC')
      .limit(page.limit ?? DEFAULT_REACTORS_LIMIT)
      .getMany();
    return users.map(toUserPartial);
  }

  private channelAccess(target: ReactionTarget, perm: bigint): Promise<ChannelAccess> {
    return this.access.requireChannelPermission(target.userId, target.channelId, perm);
  }

  private placeOf(access: ChannelAccess, target: ReactionTarget): ReactionPlace {
    return { guildId: access.guildId, channelId: target.channelId, messageId: target.messageId };
  }

  /** Deletes the message's reactions matching `condition`; announces it when any went. */
  private async removeWhere(
    target: ReactionTarget,
    condition: string,
    params: unknown[],
    event: () => RealtimeEvent,
  ): Promise<void> {
    await this.dataSource.transaction(async (m: EntityManager) => {
      const message = await this.messages.findInChannel(
        m,
        target.channelId,
        target.messageId,
        true,
      );
      // TypeORM answers a DELETE with [rows, affected].
      const [, removed] = await m.query<[unknown[], number]>(
        `DELETE FROM message_reactions WHERE message_id = $1 AND ${condition}`,
        [message.id, ...params],
      );
      if (removed > 0) await this.events.publish(m, [event()]);
    });
  }
}
