import type { ParleyApp } from '../../src/app.setup';
import { generateKeyPairSync } from 'node:crypto';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { DataSource } from 'typeorm';
import { sha256 } from '../../src/common/crypto/tokens';
import { serverPort } from '../helpers/ports';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import {
  consentCode,
  createApplication,
  exchangeCode,
  pkce,
  REDIRECT,
  type TestApplication,
} from '../helpers/oauth2-factories';

const run = promisify(execFile);
const SCRIPT = join(__dirname, 'openid-client-oidc-flow.mjs');
const RP_REDIRECT = 'http://127.0.0.1/callback';
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi'];

interface OidcFlowResult {
  error?: string;
  code?: string;
  cause?: string;
  claim?: string;
  issuer: string;
  jwks_uri: string;
  scope: string;
  id_token_header: { alg: string; kid: string; typ: string };
  claims: Record<string, unknown>;
  userinfo: Record<string, unknown>;
  refreshed_claims: Record<string, unknown> | null;
}

/** Runs the relying party (openid-client) in a child process against a listening app. */
async function relyingParty(
  issuer: string,
  client: TestApplication,
  user: TestUser,
  mode: 'ok' | 'wrong-nonce' | 'bad-signature',
  scope = 'openid email profile',
): Promise<OidcFlowResult> {
  const { stdout } = await run(
    process.execPath,
    [SCRIPT, issuer, client.id, client.clientSecret, RP_REDIRECT, user.token, mode, scope],
    { timeout: 30_000 },
  ).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as OidcFlowResult;
}

/** Starts an app that knows its own URL (openid-client checks the issuer against it). */
async function listeningApp(env: Record<string, string> = {}) {
  const port = await serverPort();
  const issuer = `http://127.0.0.1:${port}`;
  const app = await createTestApp({ env: { PUBLIC_URL: issuer, ...env } });
  await app.listen(port, '127.0.0.1');
  return { app, issuer };
}

function expectOidcFlow(
  result: OidcFlowResult,
  issuer: string,
  client: TestApplication,
  user: TestUser,
  startedAt: number,
) {
  expect(result.error).toBeUndefined();
  expect(result.issuer).toBe(issuer);
  expect(result.jwks_uri).toBe(`${issuer}/v1/oauth2/keys`);
  expect(result.scope).toBe('email openid profile');
  expect(result.id_token_header).toEqual({
    alg: expect.any(String),
    kid: expect.any(String),
    typ: 'JWT',
  });
  expect(result.claims).toEqual({
    iss: issuer,
    sub: user.userId,
    aud: client.id,
    iat: expect.any(Number),
    exp: expect.any(Number),
    auth_time: expect.any(Number),
    nonce: expect.any(String),
    email: user.email,
    email_verified: false,
    name: expect.any(String),
    preferred_username: user.username,
  });
  const claims = result.claims as { iat: number; exp: number; auth_time: number };
  expect(claims.exp - claims.iat).toBe(3600);
  // The session was created (logged in) by the registration just before.
  expect(claims.auth_time).toBeGreaterThanOrEqual(startedAt - 1);
  expect(claims.auth_time).toBeLessThanOrEqual(claims.iat);
  // userinfo: same subject (openid-client checked it too), standard claims with their types.
  expect(result.userinfo).toMatchObject({
    sub: result.claims.sub,
    id: user.userId,
    username: user.username,
    email: user.email,
    email_verified: false,
    verified: false,
    auth_time: claims.auth_time,
    preferred_username: user.username,
  });
  // Refresh: an ID token for the same login, without the nonce (OpenID Connect Core §12.2).
  expect(result.refreshed_claims).toMatchObject({
    iss: issuer,
    sub: user.userId,
    aud: client.id,
    auth_time: claims.auth_time,
  });
  expect(result.refreshed_claims).not.toHaveProperty('nonce');
}

describe('Sign in with Parley: OpenID Connect with the real openid-client v6', () => {
  describe('generated RS256 key', () => {
    let app: ParleyApp;
    let issuer: string;
    let client: TestApplication;

    beforeAll(async () => {
      ({ app, issuer } = await listeningApp());
      client = await createApplication(app, await registerUser(app), {
        redirect_uris: [RP_REDIRECT],
      });
    });
    afterAll(() => app?.close());

    it('discovers, runs code + PKCE + nonce, validates the ID token (JWKS signature, iss, aud, nonce) and matches userinfo', async () => {
      const startedAt = Math.floor(Date.now() / 1000);
      const user = await registerUser(app);
      const result = await relyingParty(issuer, client, user, 'ok');
      expectOidcFlow(result, issuer, client, user, startedAt);
      expect(result.id_token_header.alg).toBe('RS256');
      const jwks = await http(app).get('/v1/oauth2/keys');
      expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toContain(
        result.id_token_header.kid,
      );
    });

    it('the client rejects an ID token whose nonce is not the one it expects', async () => {
      const result = await relyingParty(issuer, client, await registerUser(app), 'wrong-nonce');
      expect(result.error).toBe('unexpected JWT claim value encountered');
      expect(result.code).toBe('OAUTH_JWT_CLAIM_COMPARISON_FAILED');
      expect(result.cause).toBe('unexpected ID Token "nonce" claim value');
      expect(result.claim).toBe('nonce');
    });

    it('the client verifies the signature with the JWKS: an altered signature is rejected', async () => {
      const result = await relyingParty(issuer, client, await registerUser(app), 'bad-signature');
      expect(result.code).toBe('OAUTH_INVALID_RESPONSE');
      expect(result.cause).toBe('JWT signature verification failed');
    });

    it('openid-client’s fetchUserInfo works with exactly openid email (what identity brokers ask for)', async () => {
      const user = await registerUser(app);
      const result = await relyingParty(issuer, client, user, 'ok', 'openid email');
      expect(result.error).toBeUndefined();
      expect(result.scope.split(' ').sort()).toEqual(['email', 'openid']);
      expect(result.userinfo).toEqual({
        sub: user.userId,
        auth_time: result.claims.auth_time,
        email: user.email,
        verified: false,
        email_verified: false,
      });
    });
  });

  describe('OIDC_SIGNING_KEY with an Ed25519 key', () => {
    let app: ParleyApp;
    let issuer: string;

    beforeAll(async () => {
      const key = generateKeyPairSync('ed25519')
        .privateKey.export({ format: 'pem', type: 'pkcs8' })
        .toString();
      ({ app, issuer } = await listeningApp({ OIDC_SIGNING_KEY: key }));
    });
    afterAll(() => app?.close());

    it('signs EdDSA, announces it in discovery, and openid-client verifies it', async () => {
      const disco = await http(app).get('/.well-known/openid-configuration');
      expect(disco.body.id_token_signing_alg_values_supported).toEqual(['EdDSA']);
      const client = await createApplication(app, await registerUser(app), {
        redirect_uris: [RP_REDIRECT],
      });
      const startedAt = Math.floor(Date.now() / 1000);
      const user = await registerUser(app);
      const result = await relyingParty(issuer, client, user, 'ok');
      expectOidcFlow(result, issuer, client, user, startedAt);
      expect(result.id_token_header.alg).toBe('EdDSA');
    });
  });
});

describe('OpenID Connect provider (supertest)', () => {
  let app: ParleyApp;
  let db: DataSource;
  let user: TestUser;
  let client: TestApplication;

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    user = await registerUser(app);
    client = await createApplication(app, await registerUser(app));
  });
  afterAll(() => app?.close());

  async function jwks() {
    const res = await http(app).get('/v1/oauth2/keys');
    return createLocalJWKSet(res.body as { keys: [] });
  }

  async function verifyIdToken(idToken: string): Promise<JWTPayload> {
    const { payload } = await jwtVerify(idToken, await jwks(), {
      issuer: 'http://parley.test',
      audience: client.id,
    });
    return payload;
  }

  /** Consent (with `extra`) + code exchange; returns the token response body. */
  async function tokensFor(scope: string, extra: Record<string, unknown> = {}) {
    const { code } = await consentCode(app, user, client, { scope, ...extra });
    const res = await exchangeCode(app, client, code);
    expect(res.status).toBe(200);
    return res.body as Record<string, unknown> & { access_token: string; refresh_token: string };
  }

  describe('discovery', () => {
    it('serves the same document at /.well-known/openid-configuration and under /v1, CORS *, rate-limited', async () => {
      const root = await http(app)
        .get('/.well-known/openid-configuration')
        .set('Origin', 'https://rp.example');
      const v1 = await http(app).get('/v1/.well-known/openid-configuration');
      expect(root.status).toBe(200);
      expect(v1.status).toBe(200);
      expect(root.body).toEqual(v1.body);
      expect(root.headers['access-control-allow-origin']).toBe('*');
      expect(root.headers['x-ratelimit-limit']).toBeDefined();
      expect(root.body).toEqual({
        issuer: 'http://parley.test',
        authorization_endpoint: 'http://app.parley.test/oauth2/authorize',
        token_endpoint: 'http://parley.test/v1/oauth2/token',
        userinfo_endpoint: 'http://parley.test/v1/oauth2/userinfo',
        jwks_uri: 'http://parley.test/v1/oauth2/keys',
        introspection_endpoint: 'http://parley.test/v1/oauth2/introspect',
        revocation_endpoint: 'http://parley.test/v1/oauth2/token/revoke',
        scopes_supported: [
          'identify',
          'email',
          'guilds',
          'guilds.join',
          'bot',
          'openid',
          'profile',
          'applications.commands.update',
        ],
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        code_challenge_methods_supported: ['S256'],
        claims_supported: expect.arrayContaining([
          'sub',
          'iss',
          'aud',
          'auth_time',
          'nonce',
          'email',
          'email_verified',
          'name',
          'preferred_username',
        ]),
        claims_parameter_supported: false,
        request_parameter_supported: false,
        request_uri_parameter_supported: false,
        service_documentation: 'http://parley.test/docs',
      });
    });

    it('is listed in the instance discovery and the RFC 8414 metadata', async () => {
      const disco = await http(app).get('/.well-known/service');
      expect(disco.body.endpoints).toMatchObject({
        oidc_configuration: 'http://parley.test/.well-known/openid-configuration',
        oauth2_keys: 'http://parley.test/v1/oauth2/keys',
      });
      const meta = await http(app).get('/.well-known/oauth-authorization-server');
      expect(meta.body.jwks_uri).toBe('http://parley.test/v1/oauth2/keys');
    });
  });

  describe('JWKS', () => {
    it('publishes public signing keys only, cacheable, CORS *', async () => {
      const res = await http(app).get('/v1/oauth2/keys').set('Origin', 'https://rp.example');
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=3600');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.body.keys).toHaveLength(1);
      for (const key of res.body.keys as Array<Record<string, unknown>>) {
        expect(key).toEqual({
          kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          kty: 'RSA',
          use: 'sig',
          alg: 'RS256',
          n: expect.any(String),
          e: 'AQAB',
        });
        for (const member of PRIVATE_JWK_MEMBERS) expect(key).not.toHaveProperty(member);
      }
      // The same keys at every request (loaded once at boot).
      const again = await http(app).get('/v1/oauth2/keys');
      expect(again.body).toEqual(res.body);
    });
  });

  describe('consent nonce', () => {
    const consent = (extra: Record<string, unknown>) =>
      http(app)
        .post('/v1/oauth2/authorize/consent')
        .set('Authorization', user.token)
        .send({
          client_id: client.id,
          scope: 'openid',
          redirect_uri: REDIRECT,
          response_type: 'code',
          ...extra,
        });

    it.each([
      ['over 255 characters', 'n'.repeat(256), 'BASE_TYPE_MAX_LENGTH'],
      ['empty', '', 'BASE_TYPE_MIN_LENGTH'],
      ['a number', 12345, 'BASE_TYPE_STRING'],
    ])('refuses a nonce that is %s (400)', async (_what, nonce, code) => {
      const res = await consent({ nonce });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'INVALID_FORM_BODY',
        message: expect.any(String),
        errors: expect.arrayContaining([{ path: 'nonce', code, message: expect.any(String) }]),
      });
    });

    it('accepts 255 characters and repeats them in the ID token', async () => {
      const nonce = 'n'.repeat(255);
      const body = await tokensFor('openid', { nonce });
      expect((await verifyIdToken(body.id_token as string)).nonce).toBe(nonce);
    });
  });

  describe('token endpoint', () => {
    it('returns no id_token without the openid scope', async () => {
      const body = await tokensFor('identify email', { nonce: 'abc' });
      expect(body.scope).toBe('identify email');
      expect(body).not.toHaveProperty('id_token');
    });

    it('returns a signed ID token with openid: claims by scope, auth_time from the session login', async () => {
      // The session's last proof of a credential is its auth_time.
      await db.query('UPDATE auth_sessions SET proven_at = $1 WHERE token_hash = $2', [
        '2026-01-01T00:00:00Z',
        sha256(user.token),
      ]);
      const { challenge, verifier } = pkce();
      const { code } = await consentCode(app, user, client, {
        scope: 'openid email',
        nonce: 'n-0S6_WzA2Mj',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      const res = await exchangeCode(app, client, code, { code_verifier: verifier });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      const idToken = res.body.id_token as string;
      expect(decodeProtectedHeader(idToken)).toEqual({
        alg: 'RS256',
        kid: expect.any(String),
        typ: 'JWT',
      });
      const claims = await verifyIdToken(idToken);
      expect(claims).toEqual({
        iss: 'http://parley.test',
        sub: user.userId,
        aud: client.id,
        iat: expect.any(Number),
        exp: (claims.iat ?? 0) + 3600,
        auth_time: Date.parse('2026-01-01T00:00:00Z') / 1000,
        nonce: 'n-0S6_WzA2Mj',
        email: user.email,
        email_verified: false,
      });

      // Refresh: narrowed without openid → no ID token; with it → one without nonce.
      const narrowed = await http(app).post('/v1/oauth2/token').type('form').send({
        grant_type: 'refresh_token',
        refresh_token: res.body.refresh_token,
        scope: 'email',
        client_id: client.id,
        client_secret: client.clientSecret,
      });
      expect(narrowed.status).toBe(200);
      expect(narrowed.body).not.toHaveProperty('id_token');
      const again = await http(app).post('/v1/oauth2/token').type('form').send({
        grant_type: 'refresh_token',
        refresh_token: narrowed.body.refresh_token,
        client_id: client.id,
        client_secret: client.clientSecret,
      });
      expect(again.status).toBe(200);
      const refreshed = await verifyIdToken(again.body.id_token as string);
      expect(refreshed).toMatchObject({ sub: user.userId, auth_time: claims.auth_time });
      expect(refreshed).not.toHaveProperty('nonce');
    });

    it('profile adds name and preferred_username, not the e-mail', async () => {
      const body = await tokensFor('openid profile');
      const claims = await verifyIdToken(body.id_token as string);
      expect(claims).toMatchObject({ name: expect.any(String), preferred_username: user.username });
      expect(claims).not.toHaveProperty('email');
      expect(claims).not.toHaveProperty('email_verified');
    });
  });

  describe('userinfo', () => {
    it('answers the standard claims with their types next to the existing fields', async () => {
      const body = await tokensFor('openid email profile');
      const res = await http(app)
        .get('/v1/oauth2/userinfo')
        .set('Authorization', `Bearer ${body.access_token}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        sub: user.userId,
        id: user.userId,
        username: user.username,
        discriminator: expect.any(String),
        global_name: null,
        avatar: null,
        flags: expect.any(Number),
        email: user.email,
        verified: false,
        email_verified: false,
        auth_time: expect.any(Number),
        name: user.username,
        preferred_username: user.username,
      });
      expect(typeof res.body.auth_time).toBe('number');
      expect(typeof res.body.email_verified).toBe('boolean');
      const claims = await verifyIdToken(body.id_token as string);
      expect(res.body.sub).toBe(claims.sub);
      expect(res.body.auth_time).toBe(claims.auth_time);
    });

    it('identify alone keeps the old answer plus auth_time and names', async () => {
      const body = await tokensFor('identify');
      const res = await http(app)
        .get('/v1/oauth2/userinfo')
        .set('Authorization', `Bearer ${body.access_token}`);
      expect(res.status).toBe(200);
      expect(typeof res.body.auth_time).toBe('number');
      expect(res.body).not.toHaveProperty('email');
      expect(res.body).not.toHaveProperty('email_verified');
    });

    it('serves an OpenID request without profile scopes (Core §5.3): sub, and the e-mail with email', async () => {
      const withEmail = await tokensFor('openid email');
      const res = await http(app)
        .get('/v1/oauth2/userinfo')
        .set('Authorization', `Bearer ${withEmail.access_token}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        sub: user.userId,
        auth_time: expect.any(Number),
        email: user.email,
        verified: false,
        email_verified: false,
      });
      const openidOnly = await tokensFor('openid');
      const bare = await http(app)
        .get('/v1/oauth2/userinfo')
        .set('Authorization', `Bearer ${openidOnly.access_token}`);
      expect(bare.status).toBe(200);
      expect(bare.body).toEqual({ sub: user.userId, auth_time: expect.any(Number) });
    });

    it('needs an OpenID request or a profile scope: email alone is 403 MISSING_OAUTH_SCOPE', async () => {
      const body = await tokensFor('email');
      const res = await http(app)
        .get('/v1/oauth2/userinfo')
        .set('Authorization', `Bearer ${body.access_token}`);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'MISSING_OAUTH_SCOPE', missing_scopes: ['openid'] });
    });
  });
});
