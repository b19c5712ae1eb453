import type { UserEntity } from './user.entity';
import type { UserPartialResponse, UserPrivateResponse } from './user.response';

/** What a user partial is made of (an entity, or a row read with these names). */
export type UserPartialSource = Pick<
  UserEntity,
  | 'id'
  | 'username'
  | 'discriminator'
  | 'globalName'
  | 'avatar'
  | 'avatarColor'
  | 'flags'
  | 'bot'
  | 'system'
>;

/**
 * The user columns a partial is made of, as SQL selecting them under their entity names (`u` is
 * the users row): for readers that skip the entity layer (the gateway's snapshots).
 */
export const USER_PARTIAL_COLUMNS = `u.id::text AS id, u.username, u.discriminator,
  u.global_name AS "globalName", u.avatar, u.avatar_color AS "avatarColor", u.flags, u.bot, u.system`;

/** The one mapper used everywhere a user is shown. */
export function toUserPartial(user: UserPartialSource): UserPartialResponse {
  const out: UserPartialResponse = {
    id: user.id,
    username: user.username,
    discriminator: user.discriminator,
    global_name: user.globalName,
    avatar: user.avatar,
    avatar_color: user.avatarColor,
    flags: user.flags,
  };
  if (user.bot) out.bot = true;
  if (user.system) out.system = true;
  return out;
}

export function maskPhone(phone: string | null): string | null {
  if (!phone) return null;
  return phone.replace(/\d(?=\d{2})/g, '*');
}

export function toUserPrivate(user: UserEntity): UserPrivateResponse {
  return {
    ...toUserPartial(user),
    public_flags: user.flags,
    email: user.email,
    verified: user.emailVerified,
    phone: maskPhone(user.phone),
    mfa_enabled: user.mfaEnabled,
    authenticator_types: user.authenticatorTypes,
    date_of_birth: user.dateOfBirth,
    created_at: user.createdAt.toISOString(),
  };
}

/**
 * The user as their own gateway sessions see it (READY's `user`, USER_UPDATE): the partial with
 * Discord's private fields — a bot has no e-mail and counts as verified.
 */
export function toGatewaySelf(user: UserEntity): Record<string, unknown> {
  return {
    ...toUserPartial(user),
    bot: user.bot,
    verified: user.bot ? true : user.emailVerified,
    mfa_enabled: user.mfaEnabled,
    email: user.bot ? null : user.email,
  };
}
