import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { basePermissionsSql, hasPermission, memberPermissions, ungrantable } from './permissions';
import { ranksBelow, TOP_ROLE_SQL, type RoleRank } from './role-hierarchy';

export interface GuildAccess {
  guildId: string;
  ownerId: string;
  isOwner: boolean;
  /** Effective guild-level permissions (owner/ADMINISTRATOR: every bit). */
  permissions: bigint;
}

/** A manager's access and their highest role (for the hierarchy's checks). */
export interface ManagerAccess extends GuildAccess {
  top: RoleRank;
}

export interface ChannelAccess extends GuildAccess {
  channelId: string;
}

// One indexed query: the guild's owner, the membership and the member's base permissions.
const GUILD_ACCESS_SQL = `
  SELECT g.id AS guild_id, g.owner_id, ${basePermissionsSql('g', 'm')}::text AS permissions
    FROM guilds g
    JOIN guild_members m ON m.guild_id = g.id AND m.user_id = $2
   WHERE g.id = $1`;

const CHANNEL_ACCESS_SQL = `
  SELECT c.id AS channel_id, g.id AS guild_id, g.owner_id,
         ${basePermissionsSql('g', 'm')}::text AS permissions
    FROM channels c
    JOIN guilds g ON g.id = c.guild_id
    JOIN guild_members m ON m.guild_id = g.id AND m.user_id = $2
   WHERE c.id = $1`;

interface AccessRow {
  guild_id: string;
  owner_id: string;
  permissions: string;
  channel_id?: string;
}

/**
 * The one place that answers "may user U do P in guild G". Every service asks it. Not being a
 * member is indistinguishable from the guild not existing (404), so ids of other guilds leak nothing.
 */
@Injectable()
export class GuildAccessService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private toAccess(row: AccessRow, userId: string): GuildAccess {
    return {
      guildId: row.guild_id,
      ownerId: row.owner_id,
      isOwner: row.owner_id === userId,
      permissions: memberPermissions(row.permissions, row.owner_id, userId),
    };
  }

  /** The caller's access to a guild, or null when the guild does not exist or they are not a member. */
  async access(
    userId: string,
    guildId: string,
    manager?: EntityManager,
  ): Promise<GuildAccess | null> {
    const rows = await (manager ?? this.dataSource).query<AccessRow[]>(GUILD_ACCESS_SQL, [
      guildId,
      userId,
    ]);
    return rows[0] ? this.toAccess(rows[0], userId) : null;
  }

  /**
   * Throws 404 UNKNOWN_GUILD when the user is not a member (or the guild does not exist), 403
   * MISSING_PERMISSIONS when they lack any bit of `perm`. Returns the access for further checks.
   */
  async requirePermission(
    userId: string,
    guildId: string,
    perm: bigint,
    manager?: EntityManager,
  ): Promise<GuildAccess> {
    const access = await this.access(userId, guildId, manager);
    if (!access) throw new ApiError(ErrorCode.UnknownGuild);
    if (!hasPermission(access.permissions, perm)) throw new ApiError(ErrorCode.MissingPermissions);
    return access;
  }

  /**
   * The grant rule (Discord's): whoever gives permissions — a role to a member, a bot's role at
   * install — must hold every one of them. 403 MISSING_PERMISSIONS names the bits that are not
   * held (`missing_permissions`, a decimal bitfield).
   */
  requireGrantable(access: GuildAccess, requested: bigint): void {
    const missing = ungrantable(access.permissions, requested);
    if (missing !== 0n) {
      throw new ApiError(
        ErrorCode.MissingPermissions,
        'You can only grant permissions you hold yourself.',
        { missing_permissions: missing.toString() },
      );
    }
  }

  /** requirePermission, with the caller's highest role for the hierarchy checks below. */
  async requireManager(
    userId: string,
    guildId: string,
    perm: bigint,
    manager?: EntityManager,
  ): Promise<ManagerAccess> {
    const access = await this.requirePermission(userId, guildId, perm, manager);
    const top = await this.topRole(guildId, userId, manager);
    // A member always has @everyone; no row means they left in between.
    if (!top) throw new ApiError(ErrorCode.UnknownGuild);
    return { ...access, top };
  }

  /** A member's highest role (@everyone when they have none), null when they are not a member. */
  async topRole(
    guildId: string,
    userId: string,
    manager?: EntityManager,
  ): Promise<RoleRank | null> {
    const [row] = await (manager ?? this.dataSource).query<RoleRank[]>(TOP_ROLE_SQL, [
      guildId,
      userId,
    ]);
    return row ?? null;
  }

  /**
   * The hierarchy rule for roles (Discord's): a manager acts only on roles below their highest
   * role; the owner on every role. 403 MISSING_PERMISSIONS otherwise.
   */
  requireRoleBelow(manager: ManagerAccess, role: RoleRank): void {
    if (manager.isOwner || ranksBelow(role, manager.top)) return;
    throw new ApiError(
      ErrorCode.MissingPermissions,
      'You can only manage roles below your highest role.',
    );
  }

  /**
   * The hierarchy rule for members: a manager acts on another member only when that member's
   * highest role is below theirs; nobody but the owner acts on others above, and nobody on the
   * owner. 404 UNKNOWN_MEMBER when the target is not a member.
   */
  async requireMemberBelow(
    manager: ManagerAccess,
    userId: string,
    m?: EntityManager,
  ): Promise<void> {
    const top = await this.topRole(manager.guildId, userId, m);
    if (!top) throw new ApiError(ErrorCode.UnknownMember);
    if (manager.isOwner) return;
    if (userId !== manager.ownerId && ranksBelow(top, manager.top)) return;
    throw new ApiError(
      ErrorCode.MissingPermissions,
      'You can only act on members whose highest role is below yours.',
    );
  }

  /** Like requirePermission, for a channel: 404 UNKNOWN_CHANNEL when absent or not a member. */
  async requireChannelPermission(
    userId: string,
    channelId: string,
    perm: bigint,
    manager?: EntityManager,
  ): Promise<ChannelAccess> {
    const rows = await (manager ?? this.dataSource).query<AccessRow[]>(CHANNEL_ACCESS_SQL, [
      channelId,
      userId,
    ]);
    if (!rows[0]) throw new ApiError(ErrorCode.UnknownChannel);
    const access = { ...this.toAccess(rows[0], userId), channelId };
    if (!hasPermission(access.permissions, perm)) throw new ApiError(ErrorCode.MissingPermissions);
    return access;
  }
}
