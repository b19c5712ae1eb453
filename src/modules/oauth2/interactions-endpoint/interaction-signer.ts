import { sign, type KeyObject } from 'node:crypto';

/** The headers Discord signs an interaction with, and a bot checks against `verify_key`. */
export interface InteractionSignatureHeaders {
  'X-Signature-Ed25519': string;
  'X-Signature-Timestamp': string;
}

/**
 * Discord's interaction signature: Ed25519 over the timestamp (unix seconds, as text) followed
 * by the exact body bytes, hex; what `verifyKey` of the `discord-interactions` package checks.
 */
export function signInteraction(
  key: KeyObject,
  body: string,
  now: number = Date.now(),
): InteractionSignatureHeaders {
  const timestamp = String(Math.floor(now / 1000));
  const signature = sign(null, Buffer.from(timestamp + body), key).toString('hex');
  return { 'X-Signature-Ed25519': signature, 'X-Signature-Timestamp': timestamp };
}
