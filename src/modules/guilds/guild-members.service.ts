import { Injectable, type OnModuleInit } from '@nestjs/common';
import { In, type EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import { EventName, type RealtimeEvent } from '../../infra/events/realtime-event';
import { UserEntity } from '../users/user.entity';
import { toUserPartial, USER_PARTIAL_COLUMNS, type UserPartialSource } from '../users/user.mapper';
import type { GuildMemberResponse } from './guild.response';
import { UsersService } from '../users/users.service';
import { GuildMemberEntity } from './guild-member.entity';
import { toDiscordMember, toGatewayMember } from './realtime.mapper';

/** A member and their user, as MEMBER_SELECT reads them. */
type MemberRow = UserPartialSource & { roles: string[]; nick: string | null; joined_at: Date };

const MEMBER_SELECT = `
  SELECT m.roles::text[] AS roles, m.nick, m.joined_at, ${USER_PARTIAL_COLUMNS}
    FROM guild_members m JOIN users u ON u.id = m.user_id
   WHERE m.guild_id = $1`;

function toGuildMember(row: MemberRow): GuildMemberResponse {
  return toDiscordMember(toUserPartial(row), {
    roles: row.roles,
    nick: row.nick,
    joinedAt: row.joined_at,
  });
}

/** What the bulk add did for one requested user. */
export interface BulkMemberRow {
  user_id: string;
  known: boolean;
  bot: boolean;
  /** A new membership row. */
  inserted: boolean;
  /** An existing member who was missing some of the roles. */
  roles_added: boolean;
  /** Banned from the guild: not added. */
  banned: boolean;
}

// One statement for the whole batch. Users are locked against deletion (KEY SHARE) for the
// foreign keys; an existing member keeps their roles and gains the missing requested ones (the
// WHERE skips members that already hold them all, so they are not rewritten). `xmax = 0` tells a
// fresh insert from a conflict update.
const ADD_MEMBERS = `
  WITH eligible AS (
    SELECT u.id FROM users u
     WHERE u.id = ANY($2::bigint[]) AND NOT u.bot
       AND NOT EXISTS (SELECT 1 FROM guild_bans b WHERE b.guild_id = $1 AND b.user_id = u.id)
       FOR KEY SHARE OF u
  ), upserted AS (
    INSERT INTO guild_members AS m (guild_id, user_id, roles, joined_at)
    SELECT $1, e.id, $3::bigint[], now() FROM eligible e
    ON CONFLICT (guild_id, user_id) DO UPDATE
       SET roles = m.roles || ARRAY(SELECT r FROM unnest(EXCLUDED.roles) r WHERE r <> ALL (m.roles))
     WHERE NOT m.roles @> EXCLUDED.roles
    RETURNING m.user_id, (m.xmax = 0) AS inserted
  )
  SELECT w.user_id::text AS user_id,
         u.id IS NOT NULL AS known,
         COALESCE(u.bot, false) AS bot,
         COALESCE(up.inserted, false) AS inserted,
         COALESCE(NOT up.inserted, false) AS roles_added,
         EXISTS (SELECT 1 FROM guild_bans b WHERE b.guild_id = $1 AND b.user_id = w.user_id) AS banned
    FROM unnest($2::bigint[]) AS w(user_id)
    LEFT JOIN users u ON u.id = w.user_id
    LEFT JOIN upserted up ON up.user_id = w.user_id`;

/**
 * The one owner of guild memberships: every member is added, re-roled and removed here, and each
 * change publishes its realtime event once committed (GUILD_MEMBER_ADD/UPDATE/REMOVE; the gateway
 * turns them into GUILD_CREATE/GUILD_DELETE for the member's own sessions). Callers check
 * permissions; these methods write inside the caller's transaction.
 */
@Injectable()
export class GuildMembersService implements OnModuleInit {
  constructor(
    private readonly events: RealtimeEvents,
    private readonly users: UsersService,
  ) {}

  onModuleInit(): void {
    this.users.onProfileChange((m, user) => this.profileChanged(m, user));
  }

  /**
   * Adds a member unless they already are one; returns the new row, or null. A user banned from
   * the guild is refused: 403 BANNED_FROM_GUILD.
   */
  async add(
    m: EntityManager,
    guildId: string,
    user: UserEntity,
    roles: string[] = [],
  ): Promise<GuildMemberEntity | null> {
    await this.lockAgainstBans(m, guildId);
    const [banned] = await m.query<unknown[]>(
      'SELECT 1 FROM guild_bans WHERE guild_id = $1 AND user_id = $2',
      [guildId, user.id],
    );
    if (banned) throw new ApiError(ErrorCode.BannedFromGuild);
    const member = m.create(GuildMemberEntity, {
      guildId,
      userId: user.id,
      roles,
      nick: null,
      joinedAt: new Date(),
    });
    const res = await m
      .createQueryBuilder()
      .insert()
      .into(GuildMemberEntity)
      .values(member)
      .orIgnore()
      .returning(['guild_id'])
      .execute();
    if ((res.raw as unknown[]).length === 0) return null;
    await this.events.publish(m, [memberEvent(EventName.GuildMemberAdd, member, user)]);
    return member;
  }

  /** Replaces a member's roles (besides @everyone). */
  async setRoles(
    m: EntityManager,
    guildId: string,
    userId: string,
    roles: string[],
  ): Promise<void> {
    await this.update(m, guildId, userId, { roles });
  }

  /** Changes a member's roles and/or nickname, announced as GUILD_MEMBER_UPDATE. */
  async update(
    m: EntityManager,
    guildId: string,
    userId: string,
    patch: Partial<Pick<GuildMemberEntity, 'roles' | 'nick'>>,
  ): Promise<void> {
    await m.update(GuildMemberEntity, { guildId, userId }, patch);
    const member = await m.findOne(GuildMemberEntity, {
      where: { guildId, userId },
      relations: { user: true },
    });
    if (member?.user) {
      await this.events.publish(m, [memberEvent(EventName.GuildMemberUpdate, member, member.user)]);
    }
  }

  /** A member's roles and nickname, locked until the transaction ends; null for non-members. */
  async lock(
    m: EntityManager,
    guildId: string,
    userId: string,
  ): Promise<Pick<GuildMemberEntity, 'roles' | 'nick'> | null> {
    const [row] = await m.query<Array<Pick<GuildMemberEntity, 'roles' | 'nick'>>>(
      `SELECT roles::text[] AS roles, nick FROM guild_members
        WHERE guild_id = $1 AND user_id = $2 FOR UPDATE`,
      [guildId, userId],
    );
    return row ?? null;
  }

  /**
   * Adds many users at once (the admin bulk add): one statement; existing members gain the
   * missing `roleIds`. Bot users, banned users and unknown ids are reported, not added.
   */
  async addMany(
    m: EntityManager,
    guildId: string,
    userIds: string[],
    roleIds: string[],
  ): Promise<BulkMemberRow[]> {
    await this.lockAgainstBans(m, guildId);
    const rows = await m.query<BulkMemberRow[]>(ADD_MEMBERS, [guildId, userIds, roleIds]);
    const changed = rows.filter((r) => r.inserted || r.roles_added).map((r) => r.user_id);
    if (changed.length > 0) {
      const members = await m.find(GuildMemberEntity, {
        where: { guildId, userId: In(changed) },
        relations: { user: true },
      });
      const inserted = new Set(rows.filter((r) => r.inserted).map((r) => r.user_id));
      await this.events.publish(
        m,
        members.flatMap((member) =>
          member.user
            ? [
                memberEvent(
                  inserted.has(member.userId)
                    ? EventName.GuildMemberAdd
                    : EventName.GuildMemberUpdate,
                  member,
                  member.user,
                ),
              ]
            : [],
        ),
      );
    }
    return rows;
  }

  /** Removes a member; false when they were not one. */
  async remove(m: EntityManager, guildId: string, userId: string): Promise<boolean> {
    const member = await m.findOne(GuildMemberEntity, {
      where: { guildId, userId },
      relations: { user: true },
    });
    if (!member) return false;
    await m.delete(GuildMemberEntity, { guildId, userId });
    if (member.user) {
      await this.events.publish(m, [
        {
          t: EventName.GuildMemberRemove,
          guildId,
          userId,
          d: { guild_id: guildId, user: toUserPartial(member.user) },
        },
      ]);
    }
    return true;
  }

  /** The guilds `userId` is a member of (ids, locked against concurrent membership changes). */
  async guildsOf(m: EntityManager, userId: string): Promise<string[]> {
    const rows = await m.query<Array<{ guild_id: string }>>(
      'SELECT guild_id::text AS guild_id FROM guild_members WHERE user_id = $1 ORDER BY guild_id FOR UPDATE',
      [userId],
    );
    return rows.map((r) => r.guild_id);
  }

  /** One member as Discord shows it, or null when `userId` is not a member of the guild. */
  async findMember(
    m: EntityManager,
    guildId: string,
    userId: string,
  ): Promise<GuildMemberResponse | null> {
    const [row] = await m.query<MemberRow[]>(`${MEMBER_SELECT} AND m.user_id = $2`, [
      guildId,
      userId,
    ]);
    return row ? toGuildMember(row) : null;
  }

  /** The members among `userIds` (one query), by user id; non-members are absent. */
  async membersAmong(
    m: EntityManager,
    guildId: string,
    userIds: string[],
  ): Promise<Map<string, GuildMemberResponse>> {
    if (userIds.length === 0) return new Map();
    const rows = await m.query<MemberRow[]>(`${MEMBER_SELECT} AND m.user_id = ANY($2::bigint[])`, [
      guildId,
      [...new Set(userIds)],
    ]);
    return new Map(rows.map((row) => [row.id, toGuildMember(row)]));
  }

  /** Members in user id order, after `after` (Discord's List Guild Members). */
  async listMembers(
    m: EntityManager,
    guildId: string,
    limit: number,
    after: string,
  ): Promise<GuildMemberResponse[]> {
    const rows = await m.query<MemberRow[]>(
      `${MEMBER_SELECT} AND m.user_id > $2 ORDER BY m.user_id LIMIT $3`,
      [guildId, after, limit],
    );
    return rows.map(toGuildMember);
  }

  /**
   * Members whose username or display name starts with `prefix` (case-insensitive), by name;
   * at most `limit` (Discord's member search for op 8 Request Guild Members).
   */
  async searchMembers(
    m: EntityManager,
    guildId: string,
    prefix: string,
    limit: number,
  ): Promise<GuildMemberResponse[]> {
    const pattern = `${prefix.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await m.query<MemberRow[]>(
      `${MEMBER_SELECT} AND (lower(u.username) LIKE $2 OR lower(u.global_name) LIKE $2)
        ORDER BY lower(u.username), u.id LIMIT $3`,
      [guildId, pattern, limit],
    );
    return rows.map(toGuildMember);
  }

  /** How many guilds `userId` is a member of. */
  async countGuildsOf(m: EntityManager, userId: string): Promise<number> {
    const [row] = await m.query<Array<{ n: number }>>(
      'SELECT count(*)::int AS n FROM guild_members WHERE user_id = $1',
      [userId],
    );
    return row?.n ?? 0;
  }

  /** A role is going: the members who hold it lose it. */
  async dropRole(m: EntityManager, guildId: string, roleId: string): Promise<void> {
    // TypeORM answers an UPDATE with [rows, affected].
    const [rows] = await m.query<[Array<{ user_id: string }>, number]>(
      `UPDATE guild_members SET roles = array_remove(roles, $2::bigint)
        WHERE guild_id = $1 AND $2::bigint = ANY(roles) RETURNING user_id::text AS user_id`,
      [guildId, roleId],
    );
    await this.announceUpdates(
      m,
      guildId,
      rows.map((r) => r.user_id),
    );
  }

  /**
   * A user's public profile changed (UsersService): every guild they are in hears of it as
   * GUILD_MEMBER_UPDATE, as Discord sends it.
   */
  async profileChanged(m: EntityManager, user: UserEntity): Promise<void> {
    const members = await m.find(GuildMemberEntity, { where: { userId: user.id } });
    if (members.length === 0) return;
    await this.events.publish(
      m,
      members.map((member) => memberEvent(EventName.GuildMemberUpdate, member, user)),
    );
  }

  /**
   * Joins and bans of one guild are serialised: a join holds the guild row in share mode before
   * it reads the bans (a statement of its own, so that it sees a ban committed meanwhile), a ban
   * holds it exclusively (GuildBansService.lockGuild) — so no join slips past a ban being made.
   * Writes that only reference the guild (messages, roles) take key-share locks and are not held.
   */
  private async lockAgainstBans(m: EntityManager, guildId: string): Promise<void> {
    await m.query('SELECT 1 FROM guilds WHERE id = $1 FOR SHARE', [guildId]);
  }

  private async announceUpdates(
    m: EntityManager,
    guildId: string,
    userIds: string[],
  ): Promise<void> {
    if (userIds.length === 0) return;
    const members = await m.find(GuildMemberEntity, {
      where: { guildId, userId: In(userIds) },
      relations: { user: true },
    });
    await this.events.publish(
      m,
      members.flatMap((member) =>
        member.user ? [memberEvent(EventName.GuildMemberUpdate, member, member.user)] : [],
      ),
    );
  }
}

function memberEvent(
  t: EventName.GuildMemberAdd | EventName.GuildMemberUpdate,
  member: GuildMemberEntity,
  user: UserEntity,
): RealtimeEvent {
  return {
    t,
    guildId: member.guildId,
    userId: member.userId,
    d: toGatewayMember(toUserPartial(user), member, member.guildId),
  };
}
