import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { GuildAccessService, type ManagerAccess } from '../guilds/guild-access.service';
import { GuildRoleEntity } from '../guilds/guild-role.entity';
import { GuildRolesService, type RolePatch } from '../guilds/guild-roles.service';
import { ALL_PERMISSIONS, parsePermissions, Permissions } from '../guilds/permissions';
import { toGatewayRole } from '../guilds/realtime.mapper';
import type { RoleResponse } from '../guilds/role.response';
import type { CreateRoleDto } from './dto/create-role.dto';
import type { RolePositionDto } from './dto/role-positions.dto';
import type { UpdateRoleDto } from './dto/update-role.dto';

/** Discord's limit of roles per guild (@everyone included). */
export const MAX_GUILD_ROLES = 250;

/** Where a new role goes: just above @everyone, the bottom of the hierarchy (as on Discord). */
const NEW_ROLE_POSITION = 1;

/**
 * The rules of Discord's role routes: anyone in the guild reads its roles; writing them needs
 * MANAGE_ROLES, touches only roles below the caller's highest role (the owner: any), and grants
 * only permissions the caller holds. The writes and their events are GuildRolesService's.
 */
@Injectable()
export class RolesService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly access: GuildAccessService,
    private readonly roles: GuildRolesService,
  ) {}

  async list(userId: string, guildId: string): Promise<RoleResponse[]> {
    await this.access.requirePermission(userId, guildId, 0n);
    return (await this.roles.list(this.db.manager, guildId)).map(toGatewayRole);
  }

  async get(userId: string, guildId: string, roleId: string): Promise<RoleResponse> {
    await this.access.requirePermission(userId, guildId, 0n);
    return toGatewayRole(await this.find(this.db.manager, guildId, roleId));
  }

  async create(userId: string, guildId: string, dto: CreateRoleDto): Promise<RoleResponse> {
    return this.db.transaction(async (m) => {
      const manager = await this.manager(m, userId, guildId);
      const permissions = requestedPermissions(dto.permissions) ?? 0n;
      this.access.requireGrantable(manager, permissions);
      if ((await m.countBy(GuildRoleEntity, { guildId })) >= MAX_GUILD_ROLES) {
        throw new ApiError(ErrorCode.MaxGuildRoles);
      }
      const role = await this.roles.create(m, guildId, {
        name: dto.name ?? 'new role',
        permissions,
        position: NEW_ROLE_POSITION,
        color: dto.color ?? undefined,
        hoist: dto.hoist ?? undefined,
        mentionable: dto.mentionable ?? undefined,
        unicodeEmoji: dto.unicode_emoji ?? null,
      });
      return toGatewayRole(role);
    });
  }

  async update(
    userId: string,
    guildId: string,
    roleId: string,
    dto: UpdateRoleDto,
  ): Promise<RoleResponse> {
    return this.db.transaction(async (m) => {
      const manager = await this.manager(m, userId, guildId);
      const role = await this.find(m, guildId, roleId);
      this.access.requireRoleBelow(manager, role);
      const patch: RolePatch = {};
      // @everyone keeps its name, as on Discord.
      if (dto.name != null && roleId !== guildId) patch.name = dto.name;
      const permissions = requestedPermissions(dto.permissions);
      if (permissions !== null) {
        // Only the bits being added are a grant; keeping or removing bits is not.
        this.access.requireGrantable(manager, permissions & ~BigInt(role.permissions));
        patch.permissions = permissions.toString();
      }
      if (dto.color != null) patch.color = dto.color;
      if (dto.hoist != null) patch.hoist = dto.hoist;
      if (dto.mentionable != null) patch.mentionable = dto.mentionable;
      if (dto.unicode_emoji !== undefined) patch.unicodeEmoji = dto.unicode_emoji;
      const updated = await this.roles.update(m, guildId, roleId, patch);
      return toGatewayRole(updated ?? role);
    });
  }

  async delete(userId: string, guildId: string, roleId: string): Promise<void> {
    await this.db.transaction(async (m) => {
      const manager = await this.manager(m, userId, guildId);
      const role = await this.find(m, guildId, roleId);
      this.access.requireRoleBelow(manager, role);
      // @everyone is the guild's; a bot's role goes with the bot.
      if (role.id === guildId || role.botId !== null) throw new ApiError(ErrorCode.InvalidRole);
      await this.roles.delete(m, guildId, roleId);
    });
  }

  /**
   * Discord's Modify Guild Role Positions: the listed roles move; a manager moves only roles below
   * their highest role, and only to places below it. Answers every role of the guild.
   */
  async reorder(
    userId: string,
    guildId: string,
    entries: RolePositionDto[],
  ): Promise<RoleResponse[]> {
    return this.db.transaction(async (m) => {
      const manager = await this.manager(m, userId, guildId);
      const roles = new Map((await this.roles.list(m, guildId)).map((r) => [r.id, r]));
      const positions = new Map<string, number>();
      entries.forEach((entry, i) => {
        const role = roles.get(entry.id);
        if (!role) throw ApiError.field(`${i}.id`, FieldErrorCode.UnknownRole);
        if (entry.position == null || entry.position === role.position) return;
        if (role.id === guildId) throw new ApiError(ErrorCode.InvalidRole);
        this.access.requireRoleBelow(manager, role);
        this.access.requireRoleBelow(manager, { id: role.id, position: entry.position });
        positions.set(role.id, entry.position);
      });
      return (await this.roles.reorder(m, guildId, positions)).map(toGatewayRole);
    });
  }

  /** MANAGE_ROLES, with the caller's highest role; locks the guild's roles against other writers. */
  private async manager(m: EntityManager, userId: string, guildId: string): Promise<ManagerAccess> {
    // Role writes of one guild are serialised (first): counts, positions and the hierarchy hold.
    await m.query('SELECT 1 FROM guilds WHERE id = $1 FOR NO KEY UPDATE', [guildId]);
    return this.access.requireManager(userId, guildId, Permissions.MANAGE_ROLES, m);
  }

  private async find(m: EntityManager, guildId: string, roleId: string): Promise<GuildRoleEntity> {
    const role = await m.findOneBy(GuildRoleEntity, { guildId, id: roleId });
    if (!role) throw new ApiError(ErrorCode.UnknownRole);
    return role;
  }
}

/** The requested bitfield (null/absent: none), masked to the bits Parley defines. */
function requestedPermissions(value: string | null | undefined): bigint | null {
  if (value == null) return null;
  const bits = parsePermissions(value);
  if (bits === null) throw ApiError.field('permissions', FieldErrorCode.PermissionsInvalid);
  return bits & ALL_PERMISSIONS;
}
