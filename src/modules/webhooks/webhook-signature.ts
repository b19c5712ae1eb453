import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

// Inbound delivery signatures: HMAC-SHA256 of the exact bytes received, keyed with the webhook's
// signing secret, in the header each sender uses.

/** Which header carries a route's signature, and how it is written. */
export type SignatureScheme = 'repohost' | 'errortracker';

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' ? s.trim() : undefined;
}

/**
 * The hex digest a delivery claims, or undefined when absent or malformed.
 * - repohost: `X-Hub-Signature-256: sha256=<hex>` (GitHub, Gitea, Forgejo); Gogs sends only
 *   `X-Gogs-Signature: <hex>`, read when the former is absent.
 * - errortracker: `Sentry-Hook-Signature: <hex>`.
 */
export function claimedSignature(
  scheme: SignatureScheme,
  headers: IncomingHttpHeaders,
): string | undefined {
  let hex: string | undefined;
  if (scheme === 'errortracker') {
    hex = headerValue(headers, 'sentry-hook-signature');
  } else {
    const hub = headerValue(headers, 'x-hub-signature-256');
    if (hub !== undefined) {
      const eq = hub.indexOf('=');
      hex = eq > 0 && hub.slice(0, eq).toLowerCase() === 'sha256' ? hub.slice(eq + 1) : undefined;
    } else {
      hex = headerValue(headers, 'x-gogs-signature');
    }
  }
  return hex !== undefined && HEX_SHA256.test(hex) ? hex.toLowerCase() : undefined;
}

/** True when `hex` is the HMAC-SHA256 of `body` under `key`; constant time over the digest. */
export function signatureMatches(key: Buffer, body: Buffer, hex: string): boolean {
  if (!HEX_SHA256.test(hex)) return false;
  const expected = createHmac('sha256', key).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(hex, 'hex'));
}

/** Whether a delivery's headers carry a valid signature of `body` for `scheme`. */
export function verifyDeliverySignature(
  scheme: SignatureScheme,
  key: Buffer,
  headers: IncomingHttpHeaders,
  body: Buffer,
): boolean {
  const hex = claimedSignature(scheme, headers);
  return hex !== undefined && signatureMatches(key, body, hex);
}
