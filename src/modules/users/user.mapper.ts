import type { UserEntity } from './user.entity';
import type { UserPartialResponse, UserPrivateResponse } from './user.response';

/** The one mapper used everywhere a user is shown. */
export function toUserPartial(user: UserEntity): UserPartialResponse {
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
    email: user.email,
    verified: user.emailVerified,
    phone: maskPhone(user.phone),
    mfa_enabled: user.mfaEnabled,
    authenticator_types: user.authenticatorTypes,
    date_of_birth: user.dateOfBirth,
    created_at: user.createdAt.toISOString(),
  };
}
