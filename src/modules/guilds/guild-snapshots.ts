import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { UserEntity } from '../users/user.entity';
import { toUserPartial } from '../users/user.mapper';
import { ChannelEntity } from './channel.entity';
import { GuildMemberEntity } from './guild-member.entity';
import { GuildRoleEntity } from './guild-role.entity';
import { GuildEntity } from './guild.entity';
import { effectivePermissions, hasPermission, Permissions } from './permissions';
import {
  toGatewayChannel,
  toGatewayGuild,
  toGatewayMember,
  toGatewayRole,
  type Payload,
} from './realtime.mapper';

/** A guild as one member sees it when a gateway session starts or when they join it. */
export interface MemberGuild {
  guildId: string;
  /** The GUILD_CREATE payload. */
  create: Payload;
  /** Whether they hold VIEW_CHANNEL there (channel and message events are sent only then). */
  canView: boolean;
}

export interface SnapshotOptions {
  /** List the members of guilds with at most `largeThreshold` of them (GUILD_MEMBERS). */
  members: boolean;
  largeThreshold: number;
  /** Read at most this many guilds (the caller refuses more). */
  limit: number;
}

interface MembershipRow {
  guild_id: string;
  owner_id: string;
  joined_at: Date;
  roles: string[];
  permissions: string;
  member_count: number;
}

// The member's guilds with what the gateway needs of each: their roles' permissions (guild
// level: Parley has no channel overwrites) and the member count.
const MEMBERSHIPS_SQL = `
  SELECT g.id::text AS guild_id, g.owner_id::text AS owner_id, m.joined_at, m.roles::text[] AS roles,
         (SELECT COALESCE(bit_or(r.permissions), 0) FROM guild_roles r
           WHERE r.guild_id = g.id AND (r.id = g.id OR r.id = ANY(m.roles)))::text AS permissions,
         (SELECT count(*)::int FROM guild_members c WHERE c.guild_id = g.id) AS member_count
    FROM guild_members m JOIN guilds g ON g.id = m.guild_id
   WHERE m.user_id = $1 AND ($2::bigint IS NULL OR g.id = $2)
   ORDER BY g.id
   LIMIT $3`;

/**
 * Reads guilds as gateway payloads (READY's list, GUILD_CREATE), a fixed number of queries
 * whatever the number of guilds.
 */
@Injectable()
export class GuildSnapshots {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Every guild `userId` is a member of (up to `options.limit`), in id order. */
  forUser(userId: string, options: SnapshotOptions): Promise<MemberGuild[]> {
    return this.load(userId, null, options);
  }

  /** One guild of theirs, or null when they are not (or no longer) a member. */
  async forMember(
    userId: string,
    guildId: string,
    options: Omit<SnapshotOptions, 'limit'>,
  ): Promise<MemberGuild | null> {
    const [guild] = await this.load(userId, guildId, { ...options, limit: 1 });
    return guild ?? null;
  }

  private async load(
    userId: string,
    guildId: string | null,
    options: SnapshotOptions,
  ): Promise<MemberGuild[]> {
    const rows = await this.dataSource.query<MembershipRow[]>(MEMBERSHIPS_SQL, [
      userId,
      guildId,
      options.limit,
    ]);
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.guild_id);
    const listed = rows
      .filter((r) => options.members && r.member_count <= options.largeThreshold)
      .map((r) => r.guild_id);
    const [guilds, channels, roles, members, self] = await Promise.all([
      this.dataSource.getRepository(GuildEntity).findBy({ id: In(ids) }),
      this.dataSource
        .getRepository(ChannelEntity)
        .find({ where: { guildId: In(ids) }, order: { position: 'ASC', id: 'ASC' } }),
      this.dataSource
        .getRepository(GuildRoleEntity)
        .find({ where: { guildId: In(ids) }, order: { position: 'ASC', id: 'ASC' } }),
      listed.length === 0
        ? Promise.resolve([])
        : this.dataSource.getRepository(GuildMemberEntity).find({
            where: { guildId: In(listed) },
            relations: { user: true },
            order: { joinedAt: 'ASC' },
          }),
      this.dataSource.getRepository(UserEntity).findOneBy({ id: userId }),
    ]);
    const byGuild = <T extends { guildId: string }>(items: T[]) => {
      const map = new Map<string, T[]>();
      for (const item of items) {
        const list = map.get(item.guildId) ?? [];
        list.push(item);
        map.set(item.guildId, list);
      }
      return map;
    };
    const guildById = new Map(guilds.map((g) => [g.id, g]));
    const channelsOf = byGuild(channels);
    const rolesOf = byGuild(roles);
    const membersOf = byGuild(members);
    const selfUser = self ? toUserPartial(self) : null;

    return rows.flatMap((row) => {
      const guild = guildById.get(row.guild_id);
      if (!guild || !selfUser) return [];
      const permissions = effectivePermissions(BigInt(row.permissions), row.owner_id === userId);
      const memberList = listed.includes(row.guild_id)
        ? (membersOf.get(row.guild_id) ?? []).flatMap((m) =>
            m.user ? [toGatewayMember(toUserPartial(m.user), m.roles, m.joinedAt)] : [],
          )
        : [toGatewayMember(selfUser, row.roles, row.joined_at)];
      const create: Payload = {
        ...toGatewayGuild(guild),
        unavailable: false,
        joined_at: row.joined_at.toISOString(),
        large: row.member_count > options.largeThreshold,
        member_count: row.member_count,
        lazy: true,
        roles: (rolesOf.get(row.guild_id) ?? []).map(toGatewayRole),
        channels: (channelsOf.get(row.guild_id) ?? []).map(toGatewayChannel),
        members: memberList,
        threads: [],
        presences: [],
        voice_states: [],
        stage_instances: [],
        guild_scheduled_events: [],
        soundboard_sounds: [],
      };
      return [
        {
          guildId: row.guild_id,
          create,
          canView: hasPermission(permissions, Permissions.VIEW_CHANNEL),
        },
      ];
    });
  }
}
