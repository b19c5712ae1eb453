import { ApiError } from '../../common/errors/api-error';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import type { AllowedMentionsDto } from './dto/create-message.dto';

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
