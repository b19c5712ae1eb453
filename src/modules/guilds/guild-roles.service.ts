import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { EventName } from '../../infra/events/realtime-event';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import { GuildMembersService } from './guild-members.service';
import { GuildRoleEntity } from './guild-role.entity';
import { toGatewayRole } from './realtime.mapper';

/** A role to create. */
export interface NewRole {
  /** The @everyone role's id is the guild's; others get a new snowflake. */
  id?: string;
  name: string;
  permissions: bigint;
  /** Default: above every other role. */
  position?: number;
  /** A bot's managed role: the bot user it belongs to. */
  botId?: string | null;
  color?: number;
  hoist?: boolean;
  mentionable?: boolean;
  unicodeEmoji?: string | null;
}

/** What a role's update may change. */
export type RolePatch = Partial<
  Pick<
    GuildRoleEntity,
    'name' | 'permissions' | 'position' | 'color' | 'hoist' | 'mentionable' | 'unicodeEmoji'
  >
>;

/**
 * The one owner of guild roles: every role is created, changed and deleted here, in the caller's
 * transaction, and each change is announced (GUILD_ROLE_CREATE / UPDATE / DELETE, Discord's
 * payloads). Callers check permissions and the grant rule (GuildAccessService).
 */
@Injectable()
export class GuildRolesService {
  constructor(
    private readonly snowflakes: SnowflakeService,
    private readonly members: GuildMembersService,
    private readonly events: RealtimeEvents,
  ) {}

  async create(m: EntityManager, guildId: string, input: NewRole): Promise<GuildRoleEntity> {
    const position =
      input.position ??
      Number(
        (
          await m
            .createQueryBuilder(GuildRoleEntity, 'r')
            .select('COALESCE(MAX(r.position), 0)', 'max')
            .where('r.guild_id = :guildId', { guildId })
            .getRawOne<{ max: number | string }>()
        )?.max ?? 0,
      ) + 1;
    const role = m.create(GuildRoleEntity, {
      id: input.id ?? this.snowflakes.next(),
      guildId,
      name: input.name,
      permissions: input.permissions.toString(),
      position,
      botId: input.botId ?? null,
      color: input.color ?? 0,
      hoist: input.hoist ?? false,
      mentionable: input.mentionable ?? false,
      unicodeEmoji: input.unicodeEmoji ?? null,
    });
    await m.insert(GuildRoleEntity, role);
    await this.events.publish(m, [
      {
        t: EventName.GuildRoleCreate,
        guildId,
        d: { guild_id: guildId, role: toGatewayRole(role) },
      },
    ]);
    return role;
  }

  async update(
    m: EntityManager,
    guildId: string,
    roleId: string,
    patch: RolePatch,
  ): Promise<GuildRoleEntity | null> {
    if (Object.keys(patch).length > 0) {
      await m.update(GuildRoleEntity, { guildId, id: roleId }, patch);
    }
    const role = await m.findOneBy(GuildRoleEntity, { guildId, id: roleId });
    if (!role) return null;
    await this.events.publish(m, [
      {
        t: EventName.GuildRoleUpdate,
        guildId,
        d: { guild_id: guildId, role: toGatewayRole(role) },
      },
    ]);
    return role;
  }

  /** Deletes a role (never @everyone); the members who held it lose it (GUILD_MEMBER_UPDATE). */
  async delete(m: EntityManager, guildId: string, roleId: string): Promise<boolean> {
    if (roleId === guildId) return false;
    await this.members.dropRole(m, guildId, roleId);
    const res = await m.delete(GuildRoleEntity, { guildId, id: roleId });
    if (!res.affected) return false;
    await this.events.publish(m, [
      { t: EventName.GuildRoleDelete, guildId, d: { guild_id: guildId, role_id: roleId } },
    ]);
    return true;
  }

  /**
   * Moves roles (`positions`: role id → new position), one GUILD_ROLE_UPDATE per role that moved,
   * as Discord announces a reorder. Returns every role of the guild, in hierarchy order.
   */
  async reorder(
    m: EntityManager,
    guildId: string,
    positions: Map<string, number>,
  ): Promise<GuildRoleEntity[]> {
    const roles = await this.list(m, guildId);
    for (const role of roles) {
      const position = positions.get(role.id);
      if (position === undefined || position === role.position) continue;
      await this.update(m, guildId, role.id, { position });
    }
    return this.list(m, guildId);
  }

  /** The guild's roles, lowest first (position, then the newer role lower). */
  list(m: EntityManager, guildId: string): Promise<GuildRoleEntity[]> {
    return m
      .createQueryBuilder(GuildRoleEntity, 'r')
      .where('r.guild_id = :guildId', { guildId })
      .orderBy('r.position', 'ASC')
      .addOrderBy('r.id', 'DESC')
      .getMany();
  }

  /** The managed roles of a bot in a guild (its install role). */
  async managedBy(m: EntityManager, guildId: string, botId: string): Promise<GuildRoleEntity[]> {
    return m.findBy(GuildRoleEntity, { guildId, botId });
  }
}
