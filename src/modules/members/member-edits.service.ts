import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, type EntityManager } from 'typeorm';
import { ApiError, fieldError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { GuildAccessService, type ManagerAccess } from '../guilds/guild-access.service';
import { GuildMembersService } from '../guilds/guild-members.service';
import { GuildRoleEntity } from '../guilds/guild-role.entity';
import type { GuildMemberResponse } from '../guilds/guild.response';
import { combine, hasPermission, Permissions } from '../guilds/permissions';
import type { UpdateMemberDto } from './dto/update-member.dto';

type MemberPatch = Parameters<GuildMembersService['update']>[3];

/**
 * The rules of Discord's member edits: a nickname needs MANAGE_NICKNAMES (one's own:
 * CHANGE_NICKNAME), roles need MANAGE_ROLES; acting on another member needs their highest role
 * below the caller's (the owner: anyone), and every role added or removed must be below the
 * caller's highest role, not managed, and (added) carry only permissions the caller holds. The
 * writes and GUILD_MEMBER_UPDATE are GuildMembersService's.
 */
@Injectable()
export class MemberEditsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly access: GuildAccessService,
    private readonly members: GuildMembersService,
  ) {}

  async edit(
    callerId: string,
    guildId: string,
    userId: string,
    dto: UpdateMemberDto,
  ): Promise<GuildMemberResponse> {
    const self = callerId === userId;
    return this.db.transaction(async (m) => {
      const needs =
        (dto.nick !== undefined && !self ? Permissions.MANAGE_NICKNAMES : 0n) |
        (dto.roles != null ? Permissions.MANAGE_ROLES : 0n);
      const manager = await this.access.requireManager(callerId, guildId, needs, m);
      if (dto.nick !== undefined && self) requireOwnNickname(manager);
      const current = await this.members.lock(m, guildId, userId);
      if (!current) throw new ApiError(ErrorCode.UnknownMember);
      if (!self && needs !== 0n) await this.access.requireMemberBelow(manager, userId, m);
      const patch: MemberPatch = {};
      if (dto.nick !== undefined) patch.nick = dto.nick || null;
      if (dto.roles != null) {
        patch.roles = await this.requestedRoles(m, manager, current.roles, dto.roles);
      }
      if (changes(current, patch)) await this.members.update(m, guildId, userId, patch);
      return (await this.members.findMember(m, guildId, userId)) as GuildMemberResponse;
    });
  }

  /** Discord's Add/Remove Guild Member Role: one role on or off; nothing happens when it already is. */
  async setRole(
    callerId: string,
    guildId: string,
    userId: string,
    roleId: string,
    on: boolean,
  ): Promise<void> {
    await this.db.transaction(async (m) => {
      const manager = await this.access.requireManager(
        callerId,
        guildId,
        Permissions.MANAGE_ROLES,
        m,
      );
      const role = await m.findOneBy(GuildRoleEntity, { guildId, id: roleId });
      if (!role) throw new ApiError(ErrorCode.UnknownRole);
      const current = await this.members.lock(m, guildId, userId);
      if (!current) throw new ApiError(ErrorCode.UnknownMember);
      if (callerId !== userId) await this.access.requireMemberBelow(manager, userId, m);
      // @everyone is every member's, implicitly.
      if (roleId === guildId || current.roles.includes(roleId) === on) return;
      this.requireChangeable(manager, [role], on ? [role] : []);
      const roles = on ? [...current.roles, roleId] : current.roles.filter((r) => r !== roleId);
      await this.members.update(m, guildId, userId, { roles });
    });
  }

  /**
   * The member's new role list from the requested one (@everyone and repeats dropped): unknown ids
   * are a 400 on `roles.<index>`; the roles that change must pass the hierarchy and grant rules.
   */
  private async requestedRoles(
    m: EntityManager,
    manager: ManagerAccess,
    current: string[],
    requested: string[],
  ): Promise<string[]> {
    const wanted = [...new Set(requested)].filter((id) => id !== manager.guildId);
    const known = new Map(
      (
        await m.findBy(GuildRoleEntity, {
          guildId: manager.guildId,
          id: In([...new Set([...wanted, ...current])]),
        })
      ).map((r) => [r.id, r]),
    );
    const unknown = requested.flatMap((id, i) =>
      id === manager.guildId || known.has(id)
        ? []
        : [fieldError(`roles.${i}`, FieldErrorCode.UnknownRole)],
    );
    if (unknown.length > 0) throw ApiError.form(unknown);
    const role = (id: string) => known.get(id);
    const added = wanted.filter((id) => !current.includes(id)).map(role);
    const removed = current.filter((id) => !wanted.includes(id)).map(role);
    const present = (r: GuildRoleEntity | undefined): r is GuildRoleEntity => r !== undefined;
    // A removed id whose role is gone already needs no check.
    this.requireChangeable(manager, [...added, ...removed].filter(present), added.filter(present));
    return wanted;
  }

  private requireChangeable(
    manager: ManagerAccess,
    changed: GuildRoleEntity[],
    added: GuildRoleEntity[],
  ): void {
    for (const role of changed) {
      // A bot's role comes and goes with the bot.
      if (role.botId !== null) throw new ApiError(ErrorCode.InvalidRole);
      this.access.requireRoleBelow(manager, role);
    }
    this.access.requireGrantable(manager, combine(added.map((r) => r.permissions)));
  }
}

/** One's own nickname: CHANGE_NICKNAME, or MANAGE_NICKNAMES. */
function requireOwnNickname(manager: ManagerAccess): void {
  if (
    !hasPermission(manager.permissions, Permissions.CHANGE_NICKNAME) &&
    !hasPermission(manager.permissions, Permissions.MANAGE_NICKNAMES)
  ) {
    throw new ApiError(ErrorCode.MissingPermissions);
  }
}

function changes(current: Required<MemberPatch>, patch: MemberPatch): boolean {
  if (patch.nick !== undefined && patch.nick !== current.nick) return true;
  if (patch.roles === undefined) return false;
  return (
    patch.roles.length !== current.roles.length ||
    patch.roles.some((r) => !current.roles.includes(r))
  );
}
