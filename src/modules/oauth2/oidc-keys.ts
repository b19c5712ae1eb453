import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SignJWT, type JWTPayload } from 'jose';

/** RS256 is what OpenID Connect requires every provider to offer; Ed25519 keys sign EdDSA. */
export type OidcSigningAlg = 'RS256' | 'EdDSA';

/** The keys file in DATA_DIR: a JWKS of private keys, the first one signs. */
export const OIDC_KEYS_FILE = 'oidc-keys.json';

/** A public key as published in the JWKS (RFC 7517): never a private member. */
export interface PublicJwk {
  kid: string;
  kty: string;
  use: 'sig';
  alg: OidcSigningAlg;
  n?: string;
  e?: string;
  crv?: string;
  x?: string;
}

interface LoadedKey {
  kid: string;
  alg: OidcSigningAlg;
  publicJwk: PublicJwk;
  /** Null for keys kept only so that tokens they signed still verify. */
  privateKey: KeyObject | null;
}

export interface OidcKeySources {
  dataDir: string;
  /** OIDC_SIGNING_KEY: one private key (PEM PKCS#8 or a private JWK); unset = the keys file. */
  signingKey: string | null;
  /** OIDC_PREVIOUS_KEYS: verification-only keys (PEM blocks, a JWK, a JWK array or a JWKS). */
  previousKeys: string | null;
}

const generate = promisify(generateKeyPair);

function invalid(source: string, reason: string): Error {
  // Never echo the value: it is key material.
  return new Error(`Invalid configuration:\n  ${source}: ${reason}`);
}

/** RFC 7638 thumbprint (SHA-256, base64url) of the public key's required members. */
export function jwkThumbprint(jwk: JsonWebKey): string {
  const members =
    jwk.kty === 'RSA'
      ? { e: jwk.e, kty: jwk.kty, n: jwk.n }
      : { crv: jwk.crv, kty: jwk.kty, x: jwk.x };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

function describeKey(key: KeyObject, source: string, kid?: unknown): Omit<LoadedKey, 'privateKey'> {
  let alg: OidcSigningAlg;
  if (key.asymmetricKeyType === 'rsa') {
    if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) {
      throw invalid(source, 'RSA keys must have at least 2048 bits');
    }
    alg = 'RS256';
  } else if (key.asymmetricKeyType === 'ed25519') {
    alg = 'EdDSA';
  } else {
    throw invalid(source, 'must be an RSA (RS256, ≥ 2048 bits) or an Ed25519 (EdDSA) key');
  }
  const pub = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' });
  const id =
    typeof kid === 'string' && kid.length > 0 && kid.length <= 128 ? kid : jwkThumbprint(pub);
  const publicJwk: PublicJwk =
    alg === 'RS256'
      ? { kid: id, kty: 'RSA', use: 'sig', alg, n: pub.n, e: pub.e }
      : { kid: id, kty: 'OKP', use: 'sig', alg, crv: pub.crv, x: pub.x };
  return { kid: id, alg, publicJwk };
}

/**
 * Parses key material: PEM blocks (PKCS#8 / PKCS#1 private keys, SPKI public keys when
 * `allowPublic`), or JSON (a JWK, an array of JWKs or a JWKS `{keys: [...]}`). Literal `\n`
 * sequences are read as newlines so a PEM fits on one line of a .env file.
 */
export function parseKeyMaterial(
  text: string,
  source: string,
  allowPublic: boolean,
): Array<{ key: KeyObject; kid?: unknown }> {
  let value = text.trim();
  if (!value.includes('\n') && value.includes('\\n')) value = value.replace(/\\n/g, '\n');
  const out: Array<{ key: KeyObject; kid?: unknown }> = [];
  if (value.startsWith('-----BEGIN ')) {
    const blocks = value.match(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/g) ?? [];
    if (blocks.length === 0) throw invalid(source, 'is not a PEM key');
    for (const block of blocks) {
      const isPrivate = /^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(block);
      if (!isPrivate && !allowPublic) throw invalid(source, 'must be a private key');
      try {
        out.push({ key: isPrivate ? createPrivateKey(block) : createPublicKey(block) });
      } catch {
        throw invalid(source, 'holds a PEM block that is not a readable (unencrypted) key');
      }
    }
    return out;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw invalid(source, 'must be a PEM key or a JSON Web Key');
  }
  const jwks = Array.isArray(parsed)
    ? (parsed as unknown[])
    : parsed && typeof parsed === 'object' && Array.isArray((parsed as { keys?: unknown }).keys)
      ? (parsed as { keys: unknown[] }).keys
      : [parsed];
  if (jwks.length === 0) throw invalid(source, 'holds no key');
  for (const jwk of jwks) {
    if (!jwk || typeof jwk !== 'object') throw invalid(source, 'holds an entry that is not a JWK');
    const isPrivate = 'd' in jwk;
    if (!isPrivate && !allowPublic) throw invalid(source, 'must be a private JWK (with "d")');
    try {
      const input = { key: jwk as JsonWebKey, format: 'jwk' as const };
      out.push({
        key: isPrivate ? createPrivateKey(input) : createPublicKey(input),
        kid: (jwk as { kid?: unknown }).kid,
      });
    } catch {
      throw invalid(source, 'holds a JWK that is not a readable key');
    }
  }
  return out;
}

async function newPrivateKey(alg: OidcSigningAlg): Promise<KeyObject> {
  // Generated off the event loop (libuv pool); RSA 2048 takes ~0.2 s.
  const { privateKey } =
    alg === 'RS256'
      ? await generate('rsa', { modulusLength: 2048 })
      : await generate('ed25519', undefined);
  return privateKey;
}

function privateJwk(key: KeyObject, source: string, kid?: unknown): JsonWebKey {
  const d = describeKey(key, source, kid);
  return { ...key.export({ format: 'jwk' }), kid: d.kid, alg: d.alg, use: 'sig' };
}

function readKeysFile(file: string): LoadedKey[] {
  const keys = parseKeyMaterial(readFileSync(file, 'utf8'), file, false);
  return keys.map(({ key, kid }, i) => ({
    ...describeKey(key, file, kid),
    // Only the newest key signs; the others stay so that tokens they signed still verify.
    privateKey: i === 0 ? key : null,
  }));
}

/** Writes the keys file atomically, readable by the owner only (0600). */
function writeKeysFile(file: string, jwks: JsonWebKey[], exclusive: boolean): void {
  const body = `${JSON.stringify({ keys: jwks }, null, 2)}\n`;
  if (exclusive) {
    writeFileSync(file, body, { mode: 0o600, flag: 'wx' });
    return;
  }
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, body, { mode: 0o600, flag: 'w' });
  renameSync(tmp, file);
}

async function loadOrCreateKeysFile(dataDir: string): Promise<LoadedKey[]> {
  const file = join(dataDir, OIDC_KEYS_FILE);
  if (existsSync(file)) return readKeysFile(file);
  mkdirSync(dataDir, { recursive: true });
  const key = await newPrivateKey('RS256');
  try {
    writeKeysFile(file, [privateJwk(key, file)], true);
  } catch (e) {
    // Another instance sharing DATA_DIR wrote it first: use theirs.
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  return readKeysFile(file);
}

/**
 * Rotation of the keys file (`node dist/src/cli.js oidc:rotate-key`): a new key is put first
 * (it signs from the next start on) and the older ones are kept for verification.
 */
export async function rotateKeysFile(
  dataDir: string,
  alg: OidcSigningAlg = 'RS256',
): Promise<{ kid: string; file: string; keys: number }> {
  const file = join(dataDir, OIDC_KEYS_FILE);
  const old = existsSync(file)
    ? parseKeyMaterial(readFileSync(file, 'utf8'), file, false).map(({ key, kid }) =>
        privateJwk(key, file, kid),
      )
    : [];
  mkdirSync(dataDir, { recursive: true });
  const fresh = privateJwk(await newPrivateKey(alg), file);
  const keys = [fresh, ...old.filter((k) => k.kid !== fresh.kid)];
  writeKeysFile(file, keys, false);
  return { kid: fresh.kid as string, file, keys: keys.length };
}

/**
 * The ID-token signing keys, loaded once at boot: one signing key (OIDC_SIGNING_KEY, else the
 * first key of DATA_DIR/oidc-keys.json, generated on first start) and the keys published in the
 * JWKS (the signing key, the file's older keys and OIDC_PREVIOUS_KEYS).
 */
export class OidcKeyStore {
  readonly alg: OidcSigningAlg;
  readonly kid: string;
  private readonly signingKey: KeyObject;
  private readonly published: { keys: PublicJwk[] };

  private constructor(keys: LoadedKey[]) {
    const [signing] = keys;
    if (!signing?.privateKey) throw new Error('OIDC: no signing key');
    this.alg = signing.alg;
    this.kid = signing.kid;
    this.signingKey = signing.privateKey;
    const seen = new Set<string>();
    const unique = keys.filter((k) => !seen.has(k.kid) && seen.add(k.kid));
    this.published = { keys: unique.map((k) => Object.freeze({ ...k.publicJwk })) };
  }

  static async load(sources: OidcKeySources): Promise<OidcKeyStore> {
    let keys: LoadedKey[];
    if (sources.signingKey) {
      const parsed = parseKeyMaterial(sources.signingKey, 'OIDC_SIGNING_KEY', false);
      if (parsed.length !== 1) throw invalid('OIDC_SIGNING_KEY', 'must hold exactly one key');
      const [{ key, kid }] = parsed;
      keys = [{ ...describeKey(key, 'OIDC_SIGNING_KEY', kid), privateKey: key }];
    } else {
      keys = await loadOrCreateKeysFile(sources.dataDir);
    }
    if (sources.previousKeys) {
      for (const { key, kid } of parseKeyMaterial(
        sources.previousKeys,
        'OIDC_PREVIOUS_KEYS',
        true,
      )) {
        keys.push({ ...describeKey(key, 'OIDC_PREVIOUS_KEYS', kid), privateKey: null });
      }
    }
    return new OidcKeyStore(keys);
  }

  /** The public JWKS (built once). */
  jwks(): { keys: PublicJwk[] } {
    return this.published;
  }

  /** Signs a JWT with the active key (`kid` in the header). */
  sign(payload: JWTPayload): Promise<string> {
    return new SignJWT(payload)
      .setProtectedHeader({ alg: this.alg, kid: this.kid, typ: 'JWT' })
      .sign(this.signingKey);
  }
}
