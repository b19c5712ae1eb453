import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Slots } from '../../common/concurrency/slots';
import { PreparedStatement } from '../../database/prepared';
import { toUserPartial, USER_PARTIAL_COLUMNS, type UserPartialSource } from '../users/user.mapper';
import type { UserPartialResponse } from '../users/user.response';
import { hasPermission, memberPermissions, Permissions, basePermissionsSql } from './permissions';
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
  /** The GUILD_CREATE payload, serialised. */
  create: string;
  /** Whether they hold VIEW_CHANNEL there (channel and message events are sent only then). */
  canView: boolean;
}

export interface SnapshotOptions {
  /** List the members of guilds with at most `largeThreshold` of them (GUILD_MEMBERS). */
  members: boolean;
  largeThreshold: number;
  /** Read at most this many guilds (the caller refuses more). */
  limit: number;
  /** The member's user partial, when the caller read it already (READY does). */
  self?: UserPartialResponse;
  /**
   * With GUILD_PRESENCES: the presences of the listed members who are visible, as GUILD_CREATE's
   * `presences` lists them (the gateway keeps them; Discord's shape).
   */
  presences?: (userIds: string[]) => Promise<Map<string, Payload>>;
}

/** Guilds serialised between two turns of the event loop. */
const YIELD_EVERY = 100;

/** Lets the event loop serve what is waiting (I/O included) before going on. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Snapshots read at the same time; more wait their turn (bounds the memory a burst of identifies takes). */
const MAX_CONCURRENT_READS = 8;

/** The snapshot's statements run on the pool, prepared once per connection (ARCHITECTURE §7). */
const prepared = <Row extends object>(name: string, text: string) =>
  new PreparedStatement<Row>(name, text);

interface MembershipRow {
  guild_id: string;
  name: string;
  icon: string | null;
  banner: string | null;
  owner_id: string;
  joined_at: Date;
  roles: string[];
  nick: string | null;
  permissions: string;
  member_count: number;
}

interface ChannelRow {
  id: string;
  guild_id: string;
  name: string;
  type: number;
  position: number;
}

interface RoleRow {
  id: string;
  guild_id: string;
  name: string;
  permissions: string;
  position: number;
  bot_id: string | null;
  color: number;
  hoist: boolean;
  mentionable: boolean;
  unicode_emoji: string | null;
}

interface MemberRow extends UserPartialSource {
  guild_id: string;
  roles: string[];
  nick: string | null;
  joined_at: Date;
}

// The member's guilds with what the gateway needs of each: the guild's row, the membership, the
// member's base permissions (the rule of permissions.ts) and the member count.
const MEMBERSHIPS = prepared<MembershipRow>(
  'parley_snapshot_memberships',
  `
  SELECT g.id::text AS guild_id, g.name, g.icon, g.banner, g.owner_id::text AS owner_id,
         m.joined_at, m.roles::text[] AS roles, m.nick, ${basePermissionsSql('g', 'm')}::text AS permissions,
         (SELECT count(*)::int FROM guild_members c WHERE c.guild_id = g.id) AS member_count
    FROM guild_members m JOIN guilds g ON g.id = m.guild_id
   WHERE m.user_id = $1 AND ($2::bigint IS NULL OR g.id = $2)
   ORDER BY g.id
   LIMIT $3`,
);

const CHANNELS = prepared<ChannelRow>(
  'parley_snapshot_channels',
  `
  SELECT id::text AS id, guild_id::text AS guild_id, name, type, position
    FROM channels WHERE guild_id = ANY($1::bigint[]) ORDER BY position, id`,
);

const ROLES = prepared<RoleRow>(
  'parley_snapshot_roles',
  `
  SELECT id::text AS id, guild_id::text AS guild_id, name, permissions::text AS permissions,
         position, bot_id::text AS bot_id, color, hoist, mentionable, unicode_emoji
    FROM guild_roles WHERE guild_id = ANY($1::bigint[]) ORDER BY position, id`,
);

const MEMBERS = prepared<MemberRow>(
  'parley_snapshot_members',
  `
  SELECT m.guild_id::text AS guild_id, m.roles::text[] AS roles, m.nick, m.joined_at,
         ${USER_PARTIAL_COLUMNS}
    FROM guild_members m JOIN users u ON u.id = m.user_id
   WHERE m.guild_id = ANY($1::bigint[]) ORDER BY m.joined_at`,
);

const SELF = prepared<MemberRow>(
  'parley_snapshot_self',
  `SELECT ${USER_PARTIAL_COLUMNS} FROM users u WHERE u.id = $1`,
);

/**
 * Reads guilds as gateway payloads (READY's list, GUILD_CREATE): a fixed number of plain SQL
 * queries whatever the number of guilds, rows mapped by the gateway mappers and serialised once —
 * no entity graphs (an identify burst is what sets the process's memory high-water mark).
 */
@Injectable()
export class GuildSnapshots {
  private readonly slots = new Slots(MAX_CONCURRENT_READS);

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Every guild `userId` is a member of (up to `options.limit`), in id order. */
  forUser(userId: string, options: SnapshotOptions): Promise<MemberGuild[]> {
    return this.slots.run(() => this.load(userId, null, options));
  }

  /** One guild of theirs, or null when they are not (or no longer) a member. */
  async forMember(
    userId: string,
    guildId: string,
    options: Omit<SnapshotOptions, 'limit'>,
  ): Promise<MemberGuild | null> {
    const [guild] = await this.slots.run(() =>
      this.load(userId, guildId, { ...options, limit: 1 }),
    );
    return guild ?? null;
  }

  /** Whether they hold VIEW_CHANNEL in the guild; null when they are not a member. */
  async canView(userId: string, guildId: string): Promise<boolean | null> {
    const [row] = await MEMBERSHIPS.run(this.dataSource, [userId, guildId, 1]);
    return row ? canViewOf(row, userId) : null;
  }

  private async load(
    userId: string,
    guildId: string | null,
    options: SnapshotOptions,
  ): Promise<MemberGuild[]> {
    const db = this.dataSource;
    const rows = await MEMBERSHIPS.run(db, [userId, guildId, options.limit]);
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.guild_id);
    const listed = options.members
      ? rows.filter((r) => r.member_count <= options.largeThreshold).map((r) => r.guild_id)
      : [];
    const [channels, roles, members, selfRows] = await Promise.all([
      CHANNELS.run(db, [ids]),
      ROLES.run(db, [ids]),
      listed.length === 0 ? Promise.resolve([]) : MEMBERS.run(db, [listed]),
      options.self ? Promise.resolve([]) : SELF.run(db, [userId]),
    ]);
    const self = options.self ?? (selfRows[0] ? toUserPartial(selfRows[0]) : null);
    if (!self) return [];
    const online =
      options.presences && members.length > 0
        ? await options.presences([...new Set(members.map((m) => m.id))])
        : new Map<string, Payload>();
    const channelsOf = groupBy(channels);
    const rolesOf = groupBy(roles);
    const membersOf = groupBy(members);
    const listedSet = new Set(listed);
    const out: MemberGuild[] = [];
    for (const row of rows) {
      // Hundreds of guilds are serialised in slices: the event loop serves others in between.
      if (out.length > 0 && out.length % YIELD_EVERY === 0) await yieldToLoop();
      const memberList = listedSet.has(row.guild_id)
        ? (membersOf.get(row.guild_id) ?? []).map((m) =>
            toGatewayMember(toUserPartial(m), memberOf(m)),
          )
        : [toGatewayMember(self, memberOf(row))];
      const create: Payload = {
        ...toGatewayGuild({
          id: row.guild_id,
          name: row.name,
          icon: row.icon,
          banner: row.banner,
          ownerId: row.owner_id,
        }),
        unavailable: false,
        joined_at: row.joined_at.toISOString(),
        large: row.member_count > options.largeThreshold,
        member_count: row.member_count,
        lazy: true,
        roles: (rolesOf.get(row.guild_id) ?? []).map((r) =>
          toGatewayRole({ ...r, botId: r.bot_id, unicodeEmoji: r.unicode_emoji }),
        ),
        channels: (channelsOf.get(row.guild_id) ?? []).map((c) =>
          toGatewayChannel({ ...c, guildId: c.guild_id }),
        ),
        members: memberList,
        threads: [],
        presences: listedSet.has(row.guild_id)
          ? (membersOf.get(row.guild_id) ?? []).flatMap((m) => online.get(m.id) ?? [])
          : [],
        voice_states: [],
        stage_instances: [],
        guild_scheduled_events: [],
        soundboard_sounds: [],
      };
      out.push({
        guildId: row.guild_id,
        create: JSON.stringify(create),
        canView: canViewOf(row, userId),
      });
    }
    return out;
  }
}

function memberOf(row: { roles: string[]; nick: string | null; joined_at: Date }) {
  return { roles: row.roles, nick: row.nick, joinedAt: row.joined_at };
}

function canViewOf(row: MembershipRow, userId: string): boolean {
  return hasPermission(
    memberPermissions(row.permissions, row.owner_id, userId),
    Permissions.VIEW_CHANNEL,
  );
}

function groupBy<T extends { guild_id: string }>(items: T[]): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const list = map.get(item.guild_id);
    if (list) list.push(item);
    else map.set(item.guild_id, [item]);
  }
  return map;
}
