import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EventName } from '../../infra/events/realtime-event';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import { UserEntity } from '../users/user.entity';
import { toUserPartial, USER_PARTIAL_COLUMNS, type UserPartialSource } from '../users/user.mapper';
import type { UserPartialResponse } from '../users/user.response';
import { GuildBanEntity } from './guild-ban.entity';
import { GuildMembersService } from './guild-members.service';
import { MessagesService } from './messages.service';

/** Discord's ban object. */
export interface GuildBan {
  reason: string | null;
  user: UserPartialResponse;
}

/** A page of bans in user id order: after `after`, or the last ones before `before`. */
export interface BanPage {
  limit: number;
  before?: string;
  after?: string;
}

type BanRow = UserPartialSource & { reason: string | null };

const BAN_SELECT = `
  SELECT b.reason, ${USER_PARTIAL_COLUMNS}
    FROM guild_bans b JOIN users u ON u.id = b.user_id
   WHERE b.guild_id = $1`;

const toBan = (row: BanRow): GuildBan => ({ reason: row.reason, user: toUserPartial(row) });

/**
 * The one owner of guild bans: a ban removes the membership (GUILD_MEMBER_REMOVE) and is
 * announced (GUILD_BAN_ADD), an unban too (GUILD_BAN_REMOVE), in the caller's transaction.
 * GuildMembersService refuses banned users whatever way they would join. Callers check
 * permissions and the hierarchy; they hold the guild row (`lockGuild`) so that a ban and a
 * join of the same user are serialised (see GuildMembersService.requireNotBanned).
 */
@Injectable()
export class GuildBansService {
  constructor(
    private readonly members: GuildMembersService,
    private readonly messages: MessagesService,
    private readonly events: RealtimeEvents,
  ) {}

  /**
   * Locks the guild against joins until the transaction ends (joins take a share lock on it);
   * false when there is no such guild.
   */
  async lockGuild(m: EntityManager, guildId: string): Promise<boolean> {
    const rows = await m.query<unknown[]>('SELECT 1 FROM guilds WHERE id = $1 FOR NO KEY UPDATE', [
      guildId,
    ]);
    return rows.length > 0;
  }

  /**
   * Bans `user` (a member leaves first; with `deleteMessagesSince`, their messages in the guild
   * since then go too); false when they already were banned (the ban itself is unchanged).
   */
  async ban(
    m: EntityManager,
    guildId: string,
    user: UserEntity,
    reason: string | null,
    deleteMessagesSince?: Date,
  ): Promise<boolean> {
    await this.members.remove(m, guildId, user.id);
    if (deleteMessagesSince) {
      await this.messages.deleteRecentBy(m, guildId, user.id, deleteMessagesSince);
    }
    const inserted = await m
      .createQueryBuilder()
      .insert()
      .into(GuildBanEntity)
      .values({ guildId, userId: user.id, reason, createdAt: new Date() })
      .orIgnore()
      .returning(['user_id'])
      .execute();
    if ((inserted.raw as unknown[]).length === 0) return false;
    await this.events.publish(m, [
      { t: EventName.GuildBanAdd, guildId, d: { guild_id: guildId, user: toUserPartial(user) } },
    ]);
    return true;
  }

  /** Lifts a ban; false when there was none. */
  async unban(m: EntityManager, guildId: string, userId: string): Promise<boolean> {
    const [ban] = await m.query<BanRow[]>(`${BAN_SELECT} AND b.user_id = $2 FOR UPDATE OF b`, [
      guildId,
      userId,
    ]);
    if (!ban) return false;
    await m.delete(GuildBanEntity, { guildId, userId });
    await this.events.publish(m, [
      { t: EventName.GuildBanRemove, guildId, d: { guild_id: guildId, user: toUserPartial(ban) } },
    ]);
    return true;
  }

  /** The guilds that ban `userId` (a bot user about to be deleted lifts them, announced). */
  async guildsBanning(m: EntityManager, userId: string): Promise<string[]> {
    const rows = await m.query<Array<{ guild_id: string }>>(
      'SELECT guild_id::text AS guild_id FROM guild_bans WHERE user_id = $1 ORDER BY guild_id',
      [userId],
    );
    return rows.map((r) => r.guild_id);
  }

  async find(m: EntityManager, guildId: string, userId: string): Promise<GuildBan | null> {
    const [row] = await m.query<BanRow[]>(`${BAN_SELECT} AND b.user_id = $2`, [guildId, userId]);
    return row ? toBan(row) : null;
  }

  /** Discord's Get Guild Bans: user id order; `before` takes the last `limit` below it. */
  async list(m: EntityManager, guildId: string, page: BanPage): Promise<GuildBan[]> {
    if (page.before !== undefined && page.after === undefined) {
      const rows = await m.query<BanRow[]>(
        `${BAN_SELECT} AND b.user_id < $2 ORDER BY b.user_id DESC LIMIT $3`,
        [guildId, page.before, page.limit],
      );
      return rows.reverse().map(toBan);
    }
    const rows = await m.query<BanRow[]>(
      `${BAN_SELECT} AND b.user_id > $2 AND ($3::bigint IS NULL OR b.user_id < $3)
        ORDER BY b.user_id LIMIT $4`,
      [guildId, page.after ?? '0', page.before ?? null, page.limit],
    );
    return rows.map(toBan);
  }
}
