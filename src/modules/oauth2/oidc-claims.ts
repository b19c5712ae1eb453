import type { UserEntity } from '../users/user.entity';
import { grantsProfile } from './scopes';

/** OpenID Connect standard claims about the user that both the ID token and userinfo carry. */
export interface OidcUserClaims {
  name?: string;
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
}

/** Claims listed in the discovery document's `claims_supported`. */
export const OIDC_CLAIMS = [
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'name',
  'preferred_username',
  'email',
  'email_verified',
] as const;

/**
 * `profile`/`identify` → name (display name, else username) and preferred_username;
 * `email` → email (when the account has one) and email_verified. No `picture`: avatars are
 * hashes, not URLs this instance serves.
 */
export function oidcUserClaims(
  user: Pick<UserEntity, 'username' | 'globalName' | 'email' | 'emailVerified'>,
  scopes: readonly string[],
): OidcUserClaims {
  const claims: OidcUserClaims = {};
  if (grantsProfile(scopes)) {
    claims.name = user.globalName ?? user.username;
    claims.preferred_username = user.username;
  }
  if (scopes.includes('email')) {
    if (user.email !== null) claims.email = user.email;
    claims.email_verified = user.emailVerified === true;
  }
  return claims;
}
