/**
 * Route metadata written by `@Auth`/`@Public` (auth.decorator.ts) and read by the guards. Kept apart
 * from the decorator so the guards, which the decorator composes, need not import it back.
 */
export const AUTH_METADATA = 'parley:auth';
export const PUBLIC_METADATA = 'parley:public';

/** Who may call a route. `user` = a session user (also via `Bearer <session token>`). */
export type AuthKind = 'user' | 'bot' | 'bearer' | 'admin';

/** What `@Auth` stores under AUTH_METADATA. */
export interface ResolvedAuthOptions {
  kinds: AuthKind[];
  scopes: string[];
  /** Admin ACLs of which the key must hold at least one (empty: any admin key). */
  acls: string[];
}
