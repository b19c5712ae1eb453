/**
 * Guild permission bitfield (Discord's bit positions). Stored as `bigint` columns and sent on the
 * wire as decimal strings. The guild owner and ADMINISTRATOR hold every permission.
 */
export const Permissions = {
  CREATE_INSTANT_INVITE: 1n << 0n,
  KICK_MEMBERS: 1n << 1n,
  BAN_MEMBERS: 1n << 2n,
  ADMINISTRATOR: 1n << 3n,
  MANAGE_CHANNELS: 1n << 4n,
  MANAGE_GUILD: 1n << 5n,
  ADD_REACTIONS: 1n << 6n,
  VIEW_AUDIT_LOG: 1n << 7n,
  VIEW_CHANNEL: 1n << 10n,
  SEND_MESSAGES: 1n << 11n,
  MANAGE_MESSAGES: 1n << 13n,
  EMBED_LINKS: 1n << 14n,
  ATTACH_FILES: 1n << 15n,
  READ_MESSAGE_HISTORY: 1n << 16n,
  MENTION_EVERYONE: 1n << 17n,
  CHANGE_NICKNAME: 1n << 26n,
  MANAGE_NICKNAMES: 1n << 27n,
  MANAGE_ROLES: 1n << 28n,
  MANAGE_WEBHOOKS: 1n << 29n,
  USE_APPLICATION_COMMANDS: 1n << 31n,
} as const;

export type PermissionName = keyof typeof Permissions;

/** Every defined bit. */
export const ALL_PERMISSIONS: bigint = Object.values(Permissions).reduce((a, b) => a | b, 0n);

/** What @everyone gets in a new guild (USE_APPLICATION_COMMANDS as on Discord). */
export const DEFAULT_EVERYONE_PERMISSIONS: bigint =
  Permissions.VIEW_CHANNEL |
  Permissions.SEND_MESSAGES |
  Permissions.READ_MESSAGE_HISTORY |
  Permissions.ATTACH_FILES |
  Permissions.USE_APPLICATION_COMMANDS;

/** Largest value a permissions bitfield may take (63 bits: it lives in a signed bigint column). */
export const MAX_PERMISSIONS = (1n << 63n) - 1n;

/** Combines role bitfields into the member's base permissions. */
export function combine(bitfields: Iterable<bigint | string>): bigint {
  let out = 0n;
  for (const b of bitfields) out |= BigInt(b);
  return out;
}

/**
 * The permission rule, in one place (ARCHITECTURE.md §6 "Permissions"): a member's base
 * permissions are the bits of @everyone (the role whose id is the guild's) and of their roles,
 * OR'd — guild level, Parley has no channel overwrites — and `effectivePermissions` gives the
 * owner and ADMINISTRATOR everything. Every reader uses both: HTTP access checks
 * (GuildAccessService) and the gateway's snapshots (GuildSnapshots).
 *
 * The base permissions as a SQL expression (a bigint), for a query with the guild's row as
 * `guild` and the membership's as `member`.
 */
export function basePermissionsSql(guild: string, member: string): string {
  return `(SELECT COALESCE(bit_or(r.permissions), 0) FROM guild_roles r
            WHERE r.guild_id = ${guild}.id AND (r.id = ${guild}.id OR r.id = ANY(${member}.roles)))`;
}

/** A member's effective permissions from their base permissions (as read) and the guild's owner. */
export function memberPermissions(base: bigint | string, ownerId: string, userId: string): bigint {
  return effectivePermissions(BigInt(base), ownerId === userId);
}

/**
 * Effective guild-level permissions: the owner and ADMINISTRATOR have everything, otherwise the
 * union of @everyone and the member's roles.
 */
export function effectivePermissions(base: bigint, isOwner: boolean): bigint {
  if (isOwner || (base & Permissions.ADMINISTRATOR) === Permissions.ADMINISTRATOR) {
    return ALL_PERMISSIONS | base;
  }
  return base;
}

/**
 * The bits of `requested` that a holder of `held` may not grant: nobody grants a permission they
 * do not hold (Discord's rule; the owner and ADMINISTRATOR hold every defined bit). Bits Parley
 * does not define are never granted (grants are masked with ALL_PERMISSIONS), so they are not
 * counted here.
 */
export function ungrantable(held: bigint, requested: bigint): bigint {
  return requested & ALL_PERMISSIONS & ~held;
}

/** True when every bit of `required` is set in `held`. */
export function hasPermission(held: bigint, required: bigint): boolean {
  return (held & required) === required;
}

/** Parses a permissions string (decimal); null when it is not a 63-bit unsigned integer. */
export function parsePermissions(value: unknown): bigint | null {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value !== 'string' || !/^\d{1,20}$/.test(value)) return null;
  const v = BigInt(value);
  return v <= MAX_PERMISSIONS ? v : null;
}
