/**
 * Discord's role hierarchy, in one place: roles are ranked by position and, at the same position,
 * the older role (the lower id) ranks higher — the order bot libraries sort by (discord.js
 * `Role.comparePositions`). A member's highest role is the top of their roles and @everyone
 * (position 0, the guild's id: it ranks below every role above 0).
 */
export interface RoleRank {
  id: string;
  position: number;
}

/** Positive when `a` ranks above `b`, negative when below, 0 for the same role. */
export function compareRoles(a: RoleRank, b: RoleRank): number {
  if (a.position !== b.position) return a.position - b.position;
  if (a.id === b.id) return 0;
  return BigInt(a.id) < BigInt(b.id) ? 1 : -1;
}

/** Whether `role` ranks strictly below `top` (what a member may manage). */
export function ranksBelow(role: RoleRank, top: RoleRank): boolean {
  return compareRoles(role, top) < 0;
}

/** SQL: a member's highest role (`id`, `position`) in guild $1, user $2; no row for non-members. */
export const TOP_ROLE_SQL = `
  SELECT r.id::text AS id, r.position
    FROM guild_members m
    JOIN guild_roles r ON r.guild_id = m.guild_id AND (r.id = m.guild_id OR r.id = ANY(m.roles))
   WHERE m.guild_id = $1 AND m.user_id = $2
   ORDER BY r.position DESC, r.id ASC
   LIMIT 1`;
