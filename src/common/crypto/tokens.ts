import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hash,
  randomBytes,
  randomInt,
  timingSafeEqual,
} from 'node:crypto';

/** A URL-safe random token of `bytes` random bytes (default 32, the design's minimum for secrets). */
export function randomToken(bytes = 32): string {
  if (bytes < 16) throw new RangeError('tokens need at least 16 random bytes');
  return randomBytes(bytes).toString('base64url');
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random string over an alphabet, without modulo bias (crypto.randomInt). */
export function randomString(length: number, alphabet = ALNUM): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** SHA-256 of a UTF-8 string, as a Buffer (stored in `bytea` columns). One-shot: no Hash object. */
export function sha256(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

/** SHA-256 as base64url: the wire form of hashes (e.g. a session's `id_hash`). */
export function sha256Base64Url(value: string): string {
  return sha256(value).toString('base64url');
}

/** Constant-time equality of two strings or buffers (lengths may differ). */
export function constantTimeEqual(a: string | Buffer, b: string | Buffer): boolean {
  // Hash first so that inputs of different lengths still take the same path.
  const ha = hash('sha256', a, 'buffer');
  const hb = hash('sha256', b, 'buffer');
  return timingSafeEqual(ha, hb) && Buffer.byteLength(a) === Buffer.byteLength(b);
}

/** HMAC-SHA-256 as base64url (signed URLs). */
export function hmac(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value).digest('base64url');
}

/** AES-256-GCM encryption of a short secret; output `v1.<iv>.<tag>.<ciphertext>` (base64url parts). */
export function encryptSecret(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    'v1',
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    ct.toString('base64url'),
  ].join('.');
}

export function decryptSecret(key: Buffer, sealed: string): string {
  const [version, iv, tag, ct] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || ct === undefined)
    throw new Error('malformed sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString(
    'utf8',
  );
}
