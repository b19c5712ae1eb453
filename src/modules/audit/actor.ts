import type { Caller } from '../../common/auth/caller';

/** Who did something, as the audit log records it. */
export type ActorType = 'user' | 'bot' | 'oauth2_client' | 'admin_key' | 'system' | 'anonymous';

/**
 * The acting party of a change. Services that write take an `Actor` rather than a bare user id,
 * so a write made with an admin key is attributed to the key (`id`) and its owner (`userId`).
 */
export interface Actor {
  type: ActorType;
  /** The user, bot user, OAuth2 application or admin key id; null for system/anonymous. */
  id: string | null;
  /** The user on whose behalf it acts (the key's owner, the token's user); null when none. */
  userId: string | null;
}

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null, userId: null };
export const ANONYMOUS_ACTOR: Actor = { type: 'anonymous', id: null, userId: null };

/** A signed-in user acting for themselves. */
export const userActor = (userId: string): Actor => ({ type: 'user', id: userId, userId });

/** The actor behind an authenticated request's credential. */
export function actorOf(caller: Caller): Actor {
  switch (caller.kind) {
    case 'session':
      return userActor(caller.userId);
    case 'bearer':
      return { type: 'oauth2_client', id: caller.applicationId, userId: caller.userId };
    case 'bot':
      return { type: 'bot', id: caller.userId, userId: caller.userId };
    case 'admin':
      return { type: 'admin_key', id: caller.keyId, userId: caller.userId };
  }
}
