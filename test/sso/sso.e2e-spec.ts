import { fixtureQuery } from '../helpers/fixtures';
import type { ParleyApp } from '../../src/app.setup';
import { DataSource } from 'typeorm';
import { encryptSecret, sha256 } from '../../src/common/crypto/tokens';
import { AppConfig } from '../../src/config/app.config';
import { createAdminKey } from '../helpers/admin';
import { createTestApp, http } from '../helpers/app';
import { registerUser } from '../helpers/factories';
import { findSecretsAtRest, secretNeedles } from '../helpers/secret-scan';
import { signInAtProvider, startOidcProvider, type TestOidcProvider } from './oidc-provider';

const REDIRECT_URI = 'http://app.parley.test/sso/callback';
const CLIENT_SECRET = 'parley-client-secret-at-the-idp';

/**
 * SSO against a real OpenID Provider (oidc-provider) started on loopback: authorization code +
 * PKCE S256 + nonce, the ID token verified against the provider's JWKS, account linking and
 * provisioning, and the refusals.
 */
describe('SSO (OpenID Connect)', () => {
  let provider: TestOidcProvider;
  let app: ParleyApp;
  let db: DataSource;
  const ssoEnv = (extra: Record<string, string> = {}) => ({
    SSO_ENABLED: 'on',
    SSO_ISSUER: provider.issuer,
    SSO_CLIENT_ID: 'parley',
    SSO_CLIENT_SECRET: CLIENT_SECRET,
    SSO_DISPLAY_NAME: 'Test IdP',
    SSO_ALLOWED_DOMAINS: 'allowed.test',
    SSO_AUTO_PROVISION: 'on',
    ...extra,
  });

  beforeAll(async () => {
    provider = await startOidcProvider(REDIRECT_URI, CLIENT_SECRET);
    app = await createTestApp({ env: ssoEnv() });
    db = app.get(DataSource);
  });
  afterAll(async () => {
    await app?.close();
    await provider?.stop();
  });

  const start = async (target: ParleyApp = app, redirectTo?: string) => {
    const res = await http(target)
      .post('/v1/auth/sso/start')
      .send(redirectTo === undefined ? {} : { redirect_to: redirectTo });
    expect(res.status).toBe(200);
    return res.body as { authorization_url: string; state: string; redirect_uri: string };
  };
  /** start → the provider (as `email`) → what the web app would post to complete. */
  const signIn = async (email: string, target: ParleyApp = app) => {
    const started = await start(target);
    const back = await signInAtProvider(started.authorization_url, REDIRECT_URI, email);
    expect(back.get('state')).toBe(started.state);
    return { code: back.get('code') as string, state: started.state, started };
  };
  const complete = (code: string, state: string, target: ParleyApp = app) =>
    http(target).post('/v1/auth/sso/complete').send({ code, state });

  it('reports its status and advertises SSO in discovery', async () => {
    const status = await http(app).get('/v1/auth/sso/status');
    expect(status.status).toBe(200);
    expect(status.body).toEqual({
      display_name: 'Test IdP',
      enabled: true,
      enforced: false,
      redirect_uri: REDIRECT_URI,
    });
    const discovery = await http(app).get('/.well-known/service');
    expect(discovery.body.features.sso).toBe(true);
    expect(discovery.body.sso).toMatchObject({ enabled: true, redirect_uri: REDIRECT_URI });
  });

  it('starts with PKCE S256, a nonce and a single-use state', async () => {
    const started = await start(app, '/channels/@me');
    expect(started.redirect_uri).toBe(REDIRECT_URI);
    const url = new URL(started.authorization_url);
    expect(`${url.origin}`).toBe(provider.issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: 'parley',
      redirect_uri: REDIRECT_URI,
      scope: 'openid email profile',
      state: started.state,
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
  });

  it('signs a new person in (auto-provisioned), then the same account again', async () => {
    const started = await start(app, '/channels/@me');
    const back = await signInAtProvider(
      started.authorization_url,
      REDIRECT_URI,
      'alice@allowed.test',
    );
    const done = await complete(back.get('code') as string, started.state);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({
      token: expect.any(String),
      user_id: expect.stringMatching(/^\d+$/),
      redirect_to: 'http://app.parley.test/channels/@me',
    });
    const me = await http(app)
      .get('/v1/users/@me')
      .set('Authorization', done.body.token as string);
    expect(me.body).toMatchObject({
      id: done.body.user_id,
      email: 'alice@allowed.test',
      verified: true,
      global_name: 'Alice Example',
    });

    const again = await signIn('alice@allowed.test');
    const second = await complete(again.code, again.state);
    expect(second.status).toBe(200);
    expect(second.body.user_id).toBe(done.body.user_id);
    expect(second.body.redirect_to).toBe('http://app.parley.test/');
    const audit = await db.query<Array<{ metadata: { account: string } }>>(
      "SELECT metadata FROM audit_log_entries WHERE target_id = $1 AND action = 'auth.login' ORDER BY id",
      [done.body.user_id],
    );
    expect(audit.map((a) => a.metadata.account)).toEqual(['provisioned', 'linked']);
  });

  it('links an existing account with the same verified e-mail', async () => {
    const bob = await registerUser(app, { email: 'bob@allowed.test' });
    await fixtureQuery(db, 'UPDATE users SET email_verified = true WHERE id = $1', [bob.userId]);
    const { code, state } = await signIn('bob@allowed.test');
    const done = await complete(code, state);
    expect(done.status).toBe(200);
    expect(done.body.user_id).toBe(bob.userId);
  });

  it('does not link an account whose e-mail is not verified', async () => {
    await registerUser(app, { email: 'carol@allowed.test' });
    const { code, state } = await signIn('carol@allowed.test');
    const done = await complete(code, state);
    expect(done.status).toBe(403);
    expect(done.body.code).toBe('SSO_ACCOUNT_NOT_FOUND');
  });

  it('refuses an e-mail the provider has not verified, and a domain not allowed', async () => {
    const unverified = await signIn('unverified@allowed.test');
    const a = await complete(unverified.code, unverified.state);
    expect(a.status).toBe(400);
    expect(a.body.code).toBe('SSO_EMAIL_REQUIRED');
    const foreign = await signIn('mallory@other.test');
    const b = await complete(foreign.code, foreign.state);
    expect(b.status).toBe(403);
    expect(b.body.code).toBe('SSO_DOMAIN_NOT_ALLOWED');
    const rows = await db.query("SELECT 1 FROM users WHERE email = 'mallory@other.test'");
    expect(rows).toEqual([]);
  });

  it('refuses a tampered state and a replayed one', async () => {
    const { code, state } = await signIn('alice@allowed.test');
    const tampered = await complete(
      code,
      `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`,
    );
    expect(tampered.status).toBe(400);
    expect(tampered.body.code).toBe('INVALID_SSO_STATE');
    const ok = await complete(code, state);
    expect(ok.status).toBe(200);
    const replay = await complete(code, state);
    expect(replay.status).toBe(400);
    expect(replay.body.code).toBe('INVALID_SSO_STATE');
  });

  it('refuses an ID token whose nonce is not the one of this sign-in', async () => {
    const { code, state } = await signIn('alice@allowed.test');
    await db.query('UPDATE sso_states SET nonce_enc = $2 WHERE state_hash = $1', [
      sha256(state),
      encryptSecret(app.get(AppConfig).secretKey, 'a-nonce-of-another-sign-in'),
    ]);
    const res = await complete(code, state);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('SSO_EXCHANGE_FAILED');
  });

  it('refuses an authorization code the provider did not issue', async () => {
    const started = await start();
    const res = await complete('not-a-code-from-the-provider', started.state);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('SSO_EXCHANGE_FAILED');
  });

  it('sends the web app only to its own origin', async () => {
    for (const bad of ['https://evil.example/x', '//evil.example/x', 'javascript:alert(1)']) {
      const res = await http(app).post('/v1/auth/sso/start').send({ redirect_to: bad });
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
      expect(res.body.errors[0].path).toBe('redirect_to');
    }
  });

  it('keeps no state or nonce in plaintext', async () => {
    const started = await start();
    const nonce = new URL(started.authorization_url).searchParams.get('nonce') as string;
    const needles = secretNeedles([CLIENT_SECRET], [started.state, nonce]);
    expect(await findSecretsAtRest(db, needles)).toEqual([]);
  });

  it('shows admins the configuration, without the client secret', async () => {
    const key = await createAdminKey(app, ['instance:config:view']);
    const res = await http(app).get('/v1/admin/sso/config').set('Authorization', key.header);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      enabled: true,
      display_name: 'Test IdP',
      issuer: provider.issuer,
      client_id: 'parley',
      client_secret_set: true,
      redirect_uri: REDIRECT_URI,
      scope: 'openid email profile',
      allowed_domains: ['allowed.test'],
      auto_provision: true,
      authorization_url: `${provider.issuer}/auth`,
      token_url: `${provider.issuer}/token`,
      userinfo_url: `${provider.issuer}/me`,
      jwks_url: `${provider.issuer}/jwks`,
    });
    expect(res.text).not.toContain(CLIENT_SECRET);
  });

  describe('enforced, without auto-provisioning', () => {
    let strict: ParleyApp;
    beforeAll(async () => {
      strict = await createTestApp({
        env: ssoEnv({ SSO_ENFORCED: 'on', SSO_AUTO_PROVISION: 'off' }),
      });
    });
    afterAll(() => strict.close());

    it('does not create an account for an unknown person', async () => {
      const { code, state } = await signIn('dave@allowed.test', strict);
      const res = await complete(code, state, strict);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('SSO_ACCOUNT_NOT_FOUND');
      const rows = await db.query("SELECT 1 FROM users WHERE email = 'dave@allowed.test'");
      expect(rows).toEqual([]);
    });

    it('blocks password login, registration and password reset', async () => {
      const status = await http(strict).get('/v1/auth/sso/status');
      expect(status.body.enforced).toBe(true);
      const login = await http(strict)
        .post('/v1/auth/login')
        .send({ email: 'alice@allowed.test', password: 'whatever-password' });
      expect(login.status).toBe(403);
      expect(login.body.code).toBe('SSO_REQUIRED');
      const register = await http(strict).post('/v1/auth/register').send({
        consent: true,
        date_of_birth: '1990-01-01',
        email: 'someone@allowed.test',
        password: 'correct-horse-battery',
        username: 'someone',
      });
      expect(register.status).toBe(403);
      expect(register.body.code).toBe('SSO_REQUIRED');
      const forgot = await http(strict).post('/v1/auth/forgot').send({ email: 'x@allowed.test' });
      expect(forgot.status).toBe(403);
      expect(forgot.body.code).toBe('SSO_REQUIRED');
      // SSO itself still works for a known account.
      const { code, state } = await signIn('alice@allowed.test', strict);
      expect((await complete(code, state, strict)).status).toBe(200);
    });
  });

  it('answers 400 SSO_NOT_ENABLED when SSO is off, 503 when the issuer is unreachable', async () => {
    const off = await createTestApp();
    const down = await createTestApp({
      env: { ...ssoEnv(), SSO_ISSUER: 'http://127.0.0.1:9/nowhere' },
    });
    try {
      const status = await http(off).get('/v1/auth/sso/status');
      expect(status.body).toMatchObject({ enabled: false, enforced: false });
      const started = await http(off).post('/v1/auth/sso/start').send({});
      expect(started.status).toBe(400);
      expect(started.body.code).toBe('SSO_NOT_ENABLED');
      const completed = await http(off)
        .post('/v1/auth/sso/complete')
        .send({ code: 'c', state: 's' });
      expect(completed.body.code).toBe('SSO_NOT_ENABLED');
      const unreachable = await http(down).post('/v1/auth/sso/start').send({});
      expect(unreachable.status).toBe(503);
      expect(unreachable.body.code).toBe('SSO_PROVIDER_UNAVAILABLE');
    } finally {
      await off.close();
      await down.close();
    }
  });

  it.each([
    [{}, 'code'],
    [{ code: 'c' }, 'state'],
    [{ code: 5, state: 's' }, 'code'],
    [{ code: 'c', state: ['s'] }, 'state'],
  ])('refuses a malformed complete body %j with 400', async (body, path) => {
    const res = await http(app).post('/v1/auth/sso/complete').send(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_FORM_BODY');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });
});
