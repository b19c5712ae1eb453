import { randomBytes } from 'node:crypto';
import { parseSnowflake } from '../../common/snowflake/snowflake';

/**
 * Interaction tokens. Like Discord's they start with `aW50ZXJhY3Rpb246` (base64 of
 * "interaction:"), so the webhook routes tell a follow-up from a webhook's own token; they carry
 * the interaction's id, so a token is checked against one row (its hash, in constant time).
 */
export const INTERACTION_TOKEN_PREFIX = 'aW50ZXJhY3Rpb246';

const TOKEN_RE = /^aW50ZXJhY3Rpb246[A-Za-z0-9_-]{20,200}$/;

/** A new token for interaction `id`. */
export function newInteractionToken(id: string): string {
  const body = Buffer.from(`interaction:${id}:${randomBytes(48).toString('base64url')}`);
  return body.toString('base64url');
}

/** The interaction id a token names, or null when it is no interaction token. */
export function interactionIdOf(token: unknown): string | null {
  if (typeof token !== 'string' || !TOKEN_RE.test(token)) return null;
  const [kind, id] = Buffer.from(token, 'base64url').toString('utf8').split(':');
  return kind === 'interaction' ? parseSnowflake(id) : null;
}

/** Whether `token` is shaped like an interaction token (a follow-up on the webhook routes). */
export function isInteractionToken(token: unknown): boolean {
  return typeof token === 'string' && token.startsWith(INTERACTION_TOKEN_PREFIX);
}
