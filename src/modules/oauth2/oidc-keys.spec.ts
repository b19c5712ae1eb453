import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { OIDC_KEYS_FILE, OidcKeyStore, rotateKeysFile, type PublicJwk } from './oidc-keys';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

const tempDir = () => mkdtempSync(join(tmpdir(), 'parley-oidc-keys-'));
const load = (
  dataDir: string,
  signingKey: string | null = null,
  previousKeys: string | null = null,
) => OidcKeyStore.load({ dataDir, signingKey, previousKeys });

function expectPublicOnly(keys: PublicJwk[]): void {
  for (const key of keys) {
    expect(key.use).toBe('sig');
    for (const member of PRIVATE_MEMBERS) expect(key).not.toHaveProperty(member);
  }
}

/** Verifies `token` against a JWKS the way a relying party does. */
async function verify(token: string, jwks: { keys: PublicJwk[] }) {
  const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
    issuer: 'https://parley.example',
    audience: 'client-1',
  });
  return { payload, kid: protectedHeader.kid, alg: protectedHeader.alg };
}

const claims = (now = Math.floor(Date.now() / 1000)) => ({
  iss: 'https://parley.example',
  aud: 'client-1',
  sub: '42',
  iat: now,
  exp: now + 60,
});

function ed25519Pem(): { privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}

describe('OidcKeyStore', () => {
  describe('generated key in DATA_DIR', () => {
    it('generates an RS256 key on first start, 0600, and reloads the same kid', async () => {
      const dir = tempDir();
      const first = await load(dir);
      expect(first.alg).toBe('RS256');
      const file = join(dir, OIDC_KEYS_FILE);
      expect(statSync(file).mode & 0o777).toBe(0o600);

      const again = await load(dir);
      expect(again.kid).toBe(first.kid);
      expect(again.jwks()).toEqual(first.jwks());
      expect(first.jwks().keys).toEqual([
        expect.objectContaining({ kid: first.kid, kty: 'RSA', alg: 'RS256', use: 'sig' }),
      ]);
      expectPublicOnly(first.jwks().keys);

      // A token signed before the restart verifies with the reloaded JWKS.
      const token = await first.sign(claims());
      const { payload, kid, alg } = await verify(token, again.jwks());
      expect(payload.sub).toBe('42');
      expect(kid).toBe(first.kid);
      expect(alg).toBe('RS256');
    });

    it('refuses a keys file that holds no private key, naming the file but not its content', async () => {
      const dir = tempDir();
      const { publicPem } = ed25519Pem();
      writeFileSync(join(dir, OIDC_KEYS_FILE), publicPem);
      await expect(load(dir)).rejects.toThrow(/oidc-keys\.json: must be a private key/);
    });
  });

  describe('OIDC_SIGNING_KEY', () => {
    it('imports a PEM PKCS#8 Ed25519 key (EdDSA) and writes no file', async () => {
      const dir = tempDir();
      const { privatePem } = ed25519Pem();
      const store = await load(dir, privatePem);
      expect(store.alg).toBe('EdDSA');
      expect(() => statSync(join(dir, OIDC_KEYS_FILE))).toThrow();
      const [jwk] = store.jwks().keys;
      expect(jwk).toEqual({
        kid: store.kid,
        kty: 'OKP',
        crv: 'Ed25519',
        x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        use: 'sig',
        alg: 'EdDSA',
      });
      const token = await store.sign(claims());
      expect((await verify(token, store.jwks())).alg).toBe('EdDSA');
    });

    it('reads a PEM written on one line with \\n escapes (a .env file)', async () => {
      const { privatePem } = ed25519Pem();
      const oneLine = privatePem.trim().replace(/\n/g, '\\n');
      const a = await load(tempDir(), privatePem);
      const b = await load(tempDir(), oneLine);
      expect(b.kid).toBe(a.kid);
    });

    it('imports a private RSA JWK and keeps its kid', async () => {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'key-2026' };
      const store = await load(tempDir(), JSON.stringify(jwk));
      expect(store.alg).toBe('RS256');
      expect(store.kid).toBe('key-2026');
      expectPublicOnly(store.jwks().keys);
      const token = await store.sign(claims());
      expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', kid: 'key-2026', typ: 'JWT' });
      expect((await verify(token, store.jwks())).kid).toBe('key-2026');
    });

    it.each([
      ['not a key', /OIDC_SIGNING_KEY: must be a PEM key or a JSON Web Key/],
      [
        '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----',
        /OIDC_SIGNING_KEY: holds a PEM block/,
      ],
      [
        JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'abc' }),
        /OIDC_SIGNING_KEY: must be a private JWK/,
      ],
    ])('refuses %j without echoing it', async (value, message) => {
      const err = await load(tempDir(), value).then(
        () => null,
        (e: Error) => e,
      );
      expect(err?.message).toMatch(message);
      expect(err?.message).not.toContain(value);
    });

    it('refuses a public key, a P-256 key and a short RSA key', async () => {
      const { publicPem } = ed25519Pem();
      await expect(load(tempDir(), publicPem)).rejects.toThrow(/must be a private key/);
      const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .privateKey.export({ format: 'pem', type: 'pkcs8' })
        .toString();
      await expect(load(tempDir(), ec)).rejects.toThrow(/RSA .* or an Ed25519/);
      const short = generateKeyPairSync('rsa', { modulusLength: 1024 })
        .privateKey.export({ format: 'pem', type: 'pkcs8' })
        .toString();
      await expect(load(tempDir(), short)).rejects.toThrow(/at least 2048 bits/);
    });
  });

  describe('rotation', () => {
    it('OIDC_SIGNING_KEY + OIDC_PREVIOUS_KEYS: both published, the new key signs, the old kid still verifies', async () => {
      const dir = tempDir();
      const oldKey = ed25519Pem();
      const old = await load(dir, oldKey.privatePem);
      const issuedBefore = await old.sign(claims());

      const newKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ format: 'pem', type: 'pkcs8' })
        .toString();
      // The previous key may be given as its public half only.
      const rotated = await load(dir, newKey, oldKey.publicPem);
      expect(rotated.kid).not.toBe(old.kid);
      expect(rotated.jwks().keys.map((k) => k.kid)).toEqual([rotated.kid, old.kid]);
      expectPublicOnly(rotated.jwks().keys);

      const issuedAfter = await rotated.sign(claims());
      expect(decodeProtectedHeader(issuedAfter).kid).toBe(rotated.kid);
      expect((await verify(issuedAfter, rotated.jwks())).kid).toBe(rotated.kid);
      expect((await verify(issuedBefore, rotated.jwks())).kid).toBe(old.kid);
      // The old JWKS does not know the new key.
      await expect(verify(issuedAfter, old.jwks())).rejects.toThrow();
    });

    it('OIDC_PREVIOUS_KEYS accepts the keys file (a JWKS of private keys) as-is and publishes public parts only', async () => {
      const dir = tempDir();
      const generated = await load(dir);
      const issuedBefore = await generated.sign(claims());
      const fileContent = readFileSync(join(dir, OIDC_KEYS_FILE), 'utf8');
      const { privatePem } = ed25519Pem();
      const moved = await load(tempDir(), privatePem, fileContent);
      expect(moved.jwks().keys.map((k) => k.kid)).toEqual([moved.kid, generated.kid]);
      expectPublicOnly(moved.jwks().keys);
      expect((await verify(issuedBefore, moved.jwks())).kid).toBe(generated.kid);
    });

    it('rotateKeysFile: the new key signs after a restart, the old one stays published', async () => {
      const dir = tempDir();
      const before = await load(dir);
      const issuedBefore = await before.sign(claims());

      const rotated = await rotateKeysFile(dir, 'EdDSA');
      expect(rotated.keys).toBe(2);
      expect(statSync(join(dir, OIDC_KEYS_FILE)).mode & 0o777).toBe(0o600);

      const after = await load(dir);
      expect(after.kid).toBe(rotated.kid);
      expect(after.alg).toBe('EdDSA');
      expect(after.jwks().keys.map((k) => k.kid)).toEqual([rotated.kid, before.kid]);
      expectPublicOnly(after.jwks().keys);
      const issuedAfter = await after.sign(claims());
      expect((await verify(issuedAfter, after.jwks())).kid).toBe(rotated.kid);
      expect((await verify(issuedBefore, after.jwks())).kid).toBe(before.kid);
    });

    it('publishes a key given twice once', async () => {
      const { privatePem } = ed25519Pem();
      const store = await load(tempDir(), privatePem, privatePem);
      expect(store.jwks().keys).toHaveLength(1);
    });
  });
});
