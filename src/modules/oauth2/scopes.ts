/**
 * The OAuth2 scopes Parley grants (ARCHITECTURE.md §6). `openid` makes the token endpoint return
 * an ID token (OpenID Connect); `profile` grants what `identify` grants; `guilds.join` lets the
 * application's bot add the user to a guild (`PUT /guilds/{guild_id}/members/{user_id}`);
 * `applications.commands.update` lets the application's owner manage its application commands
 * with a Bearer token (`/applications/{application_id}/commands`).
 */
export const OAUTH2_SCOPES = [
  'identify',
  'email',
  'guilds',
  'guilds.join',
  'bot',
  'openid',
  'profile',
  'applications.commands.update',
] as const;
export type OAuth2Scope = (typeof OAUTH2_SCOPES)[number];

const KNOWN = new Set<string>(OAUTH2_SCOPES);

/**
 * Parses a space-separated scope string (RFC 6749 §3.3). Returns the de-duplicated scopes in
 * canonical order, or null when it is empty or names an unknown scope.
 */
export function parseScopes(value: string): OAuth2Scope[] | null {
  const parts = value.split(' ').filter((s) => s.length > 0);
  if (parts.length === 0 || parts.some((s) => !KNOWN.has(s))) return null;
  return OAUTH2_SCOPES.filter((s) => parts.includes(s));
}

export const formatScopes = (scopes: readonly string[]): string => scopes.join(' ');

/** The user's profile (`identify`, or its OpenID Connect name `profile`). */
export const grantsProfile = (scopes: readonly string[]): boolean =>
  scopes.includes('identify') || scopes.includes('profile');
