import type { EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import type { AllowedMentionsDto } from './dto/create-message.dto';
import { hasPermission, Permissions } from './permissions';

/** At most this many distinct users (and as many roles) are resolved from one message. */
const MAX_MENTIONS = 100;
const USER_MENTION = /<@!?(\d{1,20})>/g;
const ROLE_MENTION = /<@&(\d{1,20})>/g;
const EVERYONE_MENTION = /@(everyone|here)\b/;

/**
 * What a message's content mentions, as `allowed_mentions` lets it take effect (Discord's rules):
 * without `allowed_mentions` every kind does and a reply mentions whom it answers; with it only
 * the kinds in `parse` and the ids listed, and the replied-to author only with `replied_user`.
 * Ids are candidates: who is a member and which roles exist is the caller's to resolve.
 */
export interface MentionRequest {
  userIds: string[];
  roleIds: string[];
  /** `@everyone`/`@here` in the content, allowed (the author still needs MENTION_EVERYONE). */
  everyone: boolean;
  repliedUser: boolean;
}

export function requestedMentions(
  content: string,
  allowed: AllowedMentionsDto | undefined,
): MentionRequest {
  const users = idsIn(content, USER_MENTION);
  const roles = idsIn(content, ROLE_MENTION);
  const everyone = EVERYONE_MENTION.test(content);
  if (!allowed) return { userIds: users, roleIds: roles, everyone, repliedUser: true };
  const parse = new Set(allowed.parse ?? []);
  if (
    (parse.has('users') && allowed.users?.length) ||
    (parse.has('roles') && allowed.roles?.length)
  ) {
    throw ApiError.field('allowed_mentions', FieldErrorCode.MessageAllowedMentionsParseExclusive);
  }
  const allowedUsers = new Set(allowed.users ?? []);
  const allowedRoles = new Set(allowed.roles ?? []);
  return {
    userIds: parse.has('users') ? users : users.filter((id) => allowedUsers.has(id)),
    roleIds: parse.has('roles') ? roles : roles.filter((id) => allowedRoles.has(id)),
    everyone: everyone && parse.has('everyone'),
    repliedUser: allowed.replied_user === true,
  };
}

/** The distinct ids `pattern` finds in `content`, in order of first appearance, at most 100. */
function idsIn(content: string, pattern: RegExp): string[] {
  return [...new Set([...content.matchAll(pattern)].map((m) => m[1]))].slice(0, MAX_MENTIONS);
}

/** `@everyone`/`@here` takes effect when allowed and the author holds MENTION_EVERYONE. */
export function mentionsEveryone(request: MentionRequest, permissions: bigint): boolean {
  return request.everyone && hasPermission(permissions, Permissions.MENTION_EVERYONE);
}

/**
 * The ids among `ids` that are roles of the guild the author may mention (Discord's rule: the
 * mentionable ones, or any with MENTION_EVERYONE) — never @everyone, whose id is the guild's.
 */
export async function guildRolesAmong(
  m: EntityManager,
  guildId: string,
  ids: string[],
  permissions: bigint,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await m.query<Array<{ id: string }>>(
    `SELECT id::text AS id FROM guild_roles
      WHERE guild_id = $1 AND id = ANY($2::bigint[]) AND id <> guild_id AND (mentionable OR $3)`,
    [guildId, ids, hasPermission(permissions, Permissions.MENTION_EVERYONE)],
  );
  const found = new Set(rows.map((r) => r.id));
  return ids.filter((id) => found.has(id));
}
