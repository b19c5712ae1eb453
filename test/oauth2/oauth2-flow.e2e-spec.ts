import type { ParleyApp } from '../../src/app.setup';
import { DataSource } from 'typeorm';
import { sha256 } from '../../src/common/crypto/tokens';
import { OAuth2TokensService } from '../../src/modules/oauth2/oauth2-tokens.service';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { addMember } from '../helpers/guild-factories';
import {
  basicAuth,
  consentCode,
  createApplication,
  exchangeCode,
  issueTokens,
  pkce,
  REDIRECT,
  type TestApplication,
} from '../helpers/oauth2-factories';

const introspect = (app: ParleyApp, client: TestApplication, token: string) =>
  http(app)
    .post('/v1/oauth2/introspect')
    .type('form')
    .send({ token, client_id: client.id, client_secret: client.clientSecret });

const oauthError = (error: string) => ({ error, error_description: expect.any(String) });

describe('OAuth2 authorization code flow (supertest)', () => {
  let app: ParleyApp;
  let db: DataSource;
  let owner: TestUser;
  let user: TestUser;
  let client: TestApplication;

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    owner = await registerUser(app);
    user = await registerUser(app);
    client = await createApplication(app, owner, {
      redirect_uris: [REDIRECT, 'http://localhost:3000/cb'],
    });
  });
  afterAll(() => app.close());

  describe('consent', () => {
    it('redirects with code and state', async () => {
      const { code, state, redirectTo } = await consentCode(app, user, client);
      expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(state).toBe('st4te');
      expect(redirectTo.startsWith(`${REDIRECT}?`)).toBe(true);
    });

    it.each([
      [{ client_id: '123' }, 'client_id', 'UNKNOWN_APPLICATION'],
      [{ scope: 'identify admin' }, 'scope', 'INVALID_SCOPE'],
      [{ scope: '' }, 'scope', 'INVALID_SCOPE'],
      [{ redirect_uri: 'https://client.example/other' }, 'redirect_uri', 'REDIRECT_URI_MISMATCH'],
      [{ redirect_uri: `${REDIRECT}/` }, 'redirect_uri', 'REDIRECT_URI_MISMATCH'],
      [{ redirect_uri: undefined }, 'redirect_uri', 'BASE_TYPE_REQUIRED'],
      [{ response_type: 'token' }, 'response_type', 'BASE_TYPE_CHOICES'],
      [
        { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' },
        'code_challenge_method',
        'CODE_CHALLENGE_METHOD_UNSUPPORTED',
      ],
      [
        { code_challenge: 'a'.repeat(43) },
        'code_challenge_method',
        'CODE_CHALLENGE_METHOD_UNSUPPORTED',
      ],
    ])('refuses %p with %s %s', async (extra, path, code) => {
      const res = await http(app)
        .post('/v1/oauth2/authorize/consent')
        .set('Authorization', user.token)
        .send({ client_id: client.id, scope: 'identify', redirect_uri: REDIRECT, ...extra });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_FORM_BODY');
      expect(res.body.errors).toEqual([expect.objectContaining({ path, code })]);
    });

    it('sends a bot-only consent without redirect to the web app', async () => {
      const res = await http(app)
        .post('/v1/oauth2/authorize/consent')
        .set('Authorization', user.token)
        .send({ client_id: client.id, scope: 'bot' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ redirect_to: 'http://app.parley.test/oauth2/authorized' });
    });

    it('needs a session user', async () => {
      const res = await http(app)
        .post('/v1/oauth2/authorize/consent')
        .send({ client_id: client.id, scope: 'identify' });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    });
  });

  describe('token endpoint', () => {
    it('exchanges a code (form, body credentials) with the RFC response and headers', async () => {
      const { code } = await consentCode(app, user, client);
      const res = await exchangeCode(app, client, code);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['pragma']).toBe('no-cache');
      expect(res.body).toEqual({
        access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        token_type: 'Bearer',
        expires_in: 7 * 24 * 3600,
        refresh_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        scope: 'identify email',
      });
      const me = await http(app)
        .get('/v1/oauth2/@me')
        .set('Authorization', `Bearer ${res.body.access_token}`);
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({
        application: { id: client.id, bot_public: true, flags: 0 },
        scopes: ['identify', 'email'],
        user: { id: user.userId, email: user.email, verified: false },
      });
    });

    it('accepts JSON bodies and HTTP Basic', async () => {
      const { code } = await consentCode(app, user, client);
      const res = await http(app)
        .post('/v1/oauth2/token')
        .set('Authorization', basicAuth(client.id, client.clientSecret))
        .send({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
      expect(res.status).toBe(200);
      expect(res.body.token_type).toBe('Bearer');
    });

    it('percent-decodes Basic credentials (a secret with +, %, :, space and non-ASCII)', async () => {
      const own = await createApplication(app, owner);
      const secret = 'a+b%c:d e~é/';
      // Generated secrets are URL-safe; plant a secret that needs encoding to test the decoder.
      await db.query('UPDATE oauth2_applications SET client_secret_hash = $1 WHERE id = $2', [
        sha256(secret),
        own.id,
      ]);
      const planted = { ...own, clientSecret: secret };
      const { code } = await consentCode(app, user, planted);
      const ok = await http(app)
        .post('/v1/oauth2/token')
        .set('Authorization', basicAuth(own.id, secret))
        .type('form')
        .send({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
      expect(ok.status).toBe(200);
      // Not encoded: the raw ':' and '%c:' break the form, so the client is not recognised.
      const raw = await http(app)
        .post('/v1/oauth2/token')
        .set('Authorization', `Basic ${Buffer.from(`${own.id}:${secret}`).toString('base64')}`)
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: ok.body.refresh_token });
      expect(raw.status).toBe(401);
      expect(raw.body).toEqual(oauthError('invalid_client'));
      // `+` in the encoded form is a space.
      await db.query('UPDATE oauth2_applications SET client_secret_hash = $1 WHERE id = $2', [
        sha256('with space'),
        own.id,
      ]);
      const plus = await http(app)
        .post('/v1/oauth2/token')
        .set('Authorization', `Basic ${Buffer.from(`${own.id}:with+space`).toString('base64')}`)
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: ok.body.refresh_token });
      expect(plus.status).toBe(200);
    });

    it('refuses missing client authentication with 401 invalid_client and WWW-Authenticate', async () => {
      const res = await http(app)
        .post('/v1/oauth2/token')
        .type('form')
        .send({ grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(oauthError('invalid_client'));
      expect(res.headers['www-authenticate']).toBe('Basic realm="parley"');
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('answers a browser script without credentials 401 without the Basic challenge (no login prompt), but challenges Basic', async () => {
      const fromScript = await http(app)
        .post('/v1/oauth2/introspect')
        .set('Sec-Fetch-Mode', 'cors')
        .send({ token: 'x' });
      expect(fromScript.status).toBe(401);
      expect(fromScript.body).toEqual(oauthError('invalid_client'));
      expect(fromScript.headers['www-authenticate']).toBeUndefined();
      // RFC 6749 §5.2: a client that used the Authorization header always gets the challenge.
      const basic = await http(app)
        .post('/v1/oauth2/introspect')
        .set('Sec-Fetch-Mode', 'cors')
        .set('Authorization', basicAuth(client.id, 'nope'))
        .send({ token: 'x' });
      expect(basic.status).toBe(401);
      expect(basic.headers['www-authenticate']).toBe('Basic realm="parley"');
      // A navigation (or a non-browser client) keeps it too.
      const page = await http(app)
        .post('/v1/oauth2/introspect')
        .set('Sec-Fetch-Mode', 'navigate')
        .send({ token: 'x' });
      expect(page.headers['www-authenticate']).toBe('Basic realm="parley"');
    });

    it('refuses a wrong client secret and an unknown client', async () => {
      for (const creds of [
        { client_id: client.id, client_secret: 'wrong' },
        { client_id: '42', client_secret: client.clientSecret },
        { client_id: 'abc', client_secret: client.clientSecret },
      ]) {
        const res = await http(app)
          .post('/v1/oauth2/token')
          .type('form')
          .send({ grant_type: 'refresh_token', refresh_token: 'x', ...creds });
        expect(res.status).toBe(401);
        expect(res.body).toEqual(oauthError('invalid_client'));
        expect(res.headers['www-authenticate']).toBe('Basic realm="parley"');
      }
      const basic = await http(app)
        .post('/v1/oauth2/token')
        .set('Authorization', basicAuth(client.id, 'nope'))
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: 'x' });
      expect(basic.status).toBe(401);
      expect(basic.headers['www-authenticate']).toBe('Basic realm="parley"');
    });

    it('refuses Basic and body credentials together (invalid_request)', async () => {
      const res = await http(app)
        .post('/v1/oauth2/token')
        .set('Authorization', basicAuth(client.id, client.clientSecret))
        .type('form')
        .send({
          grant_type: 'refresh_token',
          refresh_token: 'x',
          client_id: client.id,
          client_secret: client.clientSecret,
        });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(oauthError('invalid_request'));
    });

    it('answers unsupported_grant_type, invalid_request and bad JSON in RFC shape', async () => {
      const creds = { client_id: client.id, client_secret: client.clientSecret };
      const unsupported = await http(app)
        .post('/v1/oauth2/token')
        .type('form')
        .send({ grant_type: 'password', username: 'a', password: 'b', ...creds });
      expect(unsupported.status).toBe(400);
      expect(unsupported.body).toEqual(oauthError('unsupported_grant_type'));
      const missing = await http(app).post('/v1/oauth2/token').type('form').send(creds);
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual(oauthError('invalid_request'));
      const noCode = await http(app)
        .post('/v1/oauth2/token')
        .type('form')
        .send({ grant_type: 'authorization_code', ...creds });
      expect(noCode.body).toEqual(oauthError('invalid_request'));
      const repeated = await http(app)
        .post('/v1/oauth2/token')
        .type('form')
        .send(
          `grant_type=authorization_code&code=a&code=b&client_id=${client.id}&client_secret=${client.clientSecret}`,
        );
      expect(repeated.status).toBe(400);
      expect(repeated.body).toEqual(oauthError('invalid_request'));
      const badJson = await http(app)
        .post('/v1/oauth2/token')
        .set('Content-Type', 'application/json')
        .send('{"grant_type":');
      expect(badJson.status).toBe(400);
      expect(badJson.body).toEqual(oauthError('invalid_request'));
    });

    it('rejects a reused code (invalid_grant) and revokes the tokens issued from it', async () => {
      const { code } = await consentCode(app, user, client);
      const first = await exchangeCode(app, client, code);
      expect(first.status).toBe(200);
      const again = await exchangeCode(app, client, code);
      expect(again.status).toBe(400);
      expect(again.body).toEqual(oauthError('invalid_grant'));
      const me = await http(app)
        .get('/v1/oauth2/@me')
        .set('Authorization', `Bearer ${first.body.access_token}`);
      expect(me.status).toBe(401);
      expect((await introspect(app, client, first.body.refresh_token)).body).toEqual({
        active: false,
      });
      const refresh = await http(app).post('/v1/oauth2/token').type('form').send({
        grant_type: 'refresh_token',
        refresh_token: first.body.refresh_token,
        client_id: client.id,
        client_secret: client.clientSecret,
      });
      expect(refresh.body).toEqual(oauthError('invalid_grant'));
    });

    it('rejects a wrong redirect_uri, a missing one, and another client’s code', async () => {
      const { code } = await consentCode(app, user, client);
      const wrong = await exchangeCode(app, client, code, {
        redirect_uri: 'http://localhost:3000/cb',
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body).toEqual(oauthError('invalid_grant'));
      const other = await createApplication(app, owner);
      const foreign = await exchangeCode(app, other, code);
      expect(foreign.status).toBe(400);
      expect(foreign.body).toEqual(oauthError('invalid_grant'));
      // The code survived both failed attempts.
      expect((await exchangeCode(app, client, code)).status).toBe(200);
    });

    it('verifies PKCE (S256) and requires the verifier once a challenge was sent', async () => {
      const { verifier, challenge } = pkce();
      const extra = { code_challenge: challenge, code_challenge_method: 'S256' };
      const a = await consentCode(app, user, client, extra);
      const missing = await exchangeCode(app, client, a.code);
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual(oauthError('invalid_grant'));
      const wrong = await exchangeCode(app, client, a.code, { code_verifier: pkce().verifier });
      expect(wrong.body).toEqual(oauthError('invalid_grant'));
      const ok = await exchangeCode(app, client, a.code, { code_verifier: verifier });
      expect(ok.status).toBe(200);
      // A verifier without a challenge is refused too (OAuth 2.1 §4.1.3).
      const b = await consentCode(app, user, client);
      const unexpected = await exchangeCode(app, client, b.code, { code_verifier: verifier });
      expect(unexpected.body).toEqual(oauthError('invalid_grant'));
    });

    it('rejects an expired code', async () => {
      const { code } = await consentCode(app, user, client);
      await db.query(
        "UPDATE oauth2_codes SET expires_at = now() - interval '1 second' WHERE code_hash = $1",
        [sha256(code)],
      );
      const res = await exchangeCode(app, client, code);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(oauthError('invalid_grant'));
    });

    it('rotates refresh tokens; replaying a used one revokes the whole grant', async () => {
      const first = await issueTokens(app, user, client);
      const refresh = (token: string, extra: Record<string, string> = {}) =>
        http(app)
          .post('/v1/oauth2/token')
          .type('form')
          .send({
            grant_type: 'refresh_token',
            refresh_token: token,
            client_id: client.id,
            client_secret: client.clientSecret,
            ...extra,
          });
      const second = await refresh(first.refresh_token);
      expect(second.status).toBe(200);
      expect(second.body.refresh_token).not.toBe(first.refresh_token);
      expect(second.body.access_token).not.toBe(first.access_token);
      // Narrowing on refresh is allowed; widening is invalid_scope.
      const widened = await refresh(second.body.refresh_token, { scope: 'identify guilds' });
      expect(widened.status).toBe(400);
      expect(widened.body).toEqual(oauthError('invalid_scope'));
      const unknownScope = await refresh(second.body.refresh_token, { scope: 'admin' });
      expect(unknownScope.body).toEqual(oauthError('invalid_scope'));
      // Replay of the first (used) refresh token.
      const replay = await refresh(first.refresh_token);
      expect(replay.status).toBe(400);
      expect(replay.body).toEqual(oauthError('invalid_grant'));
      // …revoked every token of the grant, including the newest ones.
      const me = await http(app)
        .get('/v1/oauth2/@me')
        .set('Authorization', `Bearer ${second.body.access_token}`);
      expect(me.status).toBe(401);
      expect((await refresh(second.body.refresh_token)).body).toEqual(oauthError('invalid_grant'));
    });

    it('narrows scopes on refresh', async () => {
      const t = await issueTokens(app, user, client);
      const res = await http(app)
        .post('/v1/oauth2/token')
        .set('Authorization', basicAuth(client.id, client.clientSecret))
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: t.refresh_token, scope: 'identify' });
      expect(res.status).toBe(200);
      expect(res.body.scope).toBe('identify');
    });

    it('rejects a refresh token presented by another client', async () => {
      const t = await issueTokens(app, user, client);
      const other = await createApplication(app, owner);
      const res = await http(app).post('/v1/oauth2/token').type('form').send({
        grant_type: 'refresh_token',
        refresh_token: t.refresh_token,
        client_id: other.id,
        client_secret: other.clientSecret,
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(oauthError('invalid_grant'));
      // The rightful client can still use it.
      expect((await introspect(app, client, t.refresh_token)).body.active).toBe(true);
    });
  });

  describe('introspection and revocation', () => {
    it('describes active tokens and hides foreign, unknown and revoked ones', async () => {
      const t = await issueTokens(app, user, client);
      const access = await introspect(app, client, t.access_token);
      expect(access.status).toBe(200);
      expect(access.headers['cache-control']).toBe('no-store');
      expect(access.body).toEqual({
        active: true,
        client_id: client.id,
        sub: user.userId,
        scope: 'identify email',
        token_type: 'Bearer',
        exp: expect.any(Number),
        iat: expect.any(Number),
        username: user.username,
      });
      expect(access.body.exp - access.body.iat).toBe(7 * 24 * 3600);
      const refresh = await introspect(app, client, t.refresh_token);
      expect(refresh.body).toMatchObject({ active: true, token_type: 'refresh_token' });
      const other = await createApplication(app, owner);
      expect((await introspect(app, other, t.access_token)).body).toEqual({ active: false });
      expect((await introspect(app, client, 'nope')).body).toEqual({ active: false });

      const revoke = await http(app)
        .post('/v1/oauth2/token/revoke')
        .set('Authorization', basicAuth(client.id, client.clientSecret))
        .type('form')
        .send({ token: t.refresh_token, token_type_hint: 'refresh_token' });
      expect(revoke.status).toBe(200);
      expect(revoke.text).toBe('');
      // Revoking the refresh token revoked the access token too.
      expect((await introspect(app, client, t.access_token)).body).toEqual({ active: false });
      const me = await http(app)
        .get('/v1/oauth2/@me')
        .set('Authorization', `Bearer ${t.access_token}`);
      expect(me.status).toBe(401);
    });

    it('reports expired tokens inactive', async () => {
      const t = await issueTokens(app, user, client);
      await db.query(
        "UPDATE oauth2_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1",
        [sha256(t.access_token)],
      );
      expect((await introspect(app, client, t.access_token)).body).toEqual({ active: false });
      const me = await http(app)
        .get('/v1/oauth2/@me')
        .set('Authorization', `Bearer ${t.access_token}`);
      expect(me.status).toBe(401);
    });

    it('revokes by access token, ignores unknown tokens and foreign clients', async () => {
      const t = await issueTokens(app, user, client);
      const other = await createApplication(app, owner);
      const foreign = await http(app)
        .post('/v1/oauth2/token/revoke')
        .type('form')
        .send({ token: t.access_token, client_id: other.id, client_secret: other.clientSecret });
      expect(foreign.status).toBe(200);
      expect((await introspect(app, client, t.access_token)).body.active).toBe(true);
      const unknown = await http(app)
        .post('/v1/oauth2/token/revoke')
        .send({ token: 'unknown', client_id: client.id, client_secret: client.clientSecret });
      expect(unknown.status).toBe(200);
      const own = await http(app)
        .post('/v1/oauth2/token/revoke')
        .type('form')
        .send({ token: t.access_token, client_id: client.id, client_secret: client.clientSecret });
      expect(own.status).toBe(200);
      expect((await introspect(app, client, t.refresh_token)).body).toEqual({ active: false });
    });

    it('needs client authentication and a token', async () => {
      for (const path of ['/v1/oauth2/introspect', '/v1/oauth2/token/revoke']) {
        const anon = await http(app).post(path).type('form').send({ token: 'x' });
        expect(anon.status).toBe(401);
        expect(anon.body).toEqual(oauthError('invalid_client'));
        expect(anon.headers['www-authenticate']).toBe('Basic realm="parley"');
        const noToken = await http(app)
          .post(path)
          .type('form')
          .send({ client_id: client.id, client_secret: client.clientSecret });
        expect(noToken.status).toBe(400);
        expect(noToken.body).toEqual(oauthError('invalid_request'));
      }
    });
  });

  describe('resource endpoints', () => {
    it('shows the user only with identify and the e-mail only with email', async () => {
      const identify = await issueTokens(app, user, client, 'identify');
      const me = await http(app)
        .get('/v1/oauth2/@me')
        .set('Authorization', `Bearer ${identify.access_token}`);
      expect(me.status).toBe(200);
      expect(me.body.user).toMatchObject({ id: user.userId, username: user.username });
      expect(me.body.user).not.toHaveProperty('email');
      expect(new Date(me.body.expires).getTime()).toBeGreaterThan(Date.now());
      const info = await http(app)
        .get('/v1/oauth2/userinfo')
        .set('Authorization', `Bearer ${identify.access_token}`);
      expect(info.status).toBe(200);
      expect(info.body).toMatchObject({ sub: user.userId, id: user.userId });
      expect(info.body).not.toHaveProperty('email');

      const guilds = await issueTokens(app, user, client, 'guilds');
      const noUser = await http(app)
        .get('/v1/oauth2/@me')
        .set('Authorization', `Bearer ${guilds.access_token}`);
      expect(noUser.status).toBe(200);
      expect(noUser.body).not.toHaveProperty('user');
      const denied = await http(app)
        .get('/v1/oauth2/userinfo')
        .set('Authorization', `Bearer ${guilds.access_token}`);
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('MISSING_OAUTH_SCOPE');

      const email = await issueTokens(app, user, client, 'identify email');
      const withEmail = await http(app)
        .get('/v1/oauth2/userinfo')
        .set('Authorization', `Bearer ${email.access_token}`);
      expect(withEmail.body).toMatchObject({ email: user.email, verified: false });
    });

    it('refuses session tokens on bearer-only routes and access tokens on user routes', async () => {
      const t = await issueTokens(app, user, client, 'identify');
      const session = await http(app).get('/v1/oauth2/@me').set('Authorization', user.token);
      expect(session.status).toBe(403);
      expect(session.body.code).toBe('ACCESS_DENIED');
      const users = await http(app)
        .get('/v1/users/@me')
        .set('Authorization', `Bearer ${t.access_token}`);
      expect(users.status).toBe(403);
      expect(users.body.code).toBe('ACCESS_DENIED');
    });

    it.each(['/v1/oauth2/@me', '/v1/oauth2/userinfo'])('%s needs a token (401)', async (path) => {
      const anon = await http(app).get(path);
      expect(anon.status).toBe(401);
      expect(anon.body.code).toBe('UNAUTHORIZED');
      const bad = await http(app).get(path).set('Authorization', 'Bearer not-a-real-token');
      expect(bad.status).toBe(401);
    });
  });

  describe('authorizations', () => {
    it('lists the user’s authorizations and deleting one revokes its tokens', async () => {
      const someone = await registerUser(app);
      const t = await issueTokens(app, someone, client, 'identify');
      await issueTokens(app, someone, client, 'email');
      const list = await http(app)
        .get('/v1/oauth2/@me/authorizations')
        .set('Authorization', someone.token);
      expect(list.status).toBe(200);
      expect(list.body).toEqual([
        {
          application: {
            id: client.id,
            name: expect.any(String),
            description: null,
            icon: null,
            bot_public: true,
          },
          scopes: expect.arrayContaining(['identify', 'email']),
          authorized_at: expect.any(String),
        },
      ]);
      const del = await http(app)
        .delete(`/v1/oauth2/@me/authorizations/${client.id}`)
        .set('Authorization', someone.token);
      expect(del.status).toBe(204);
      expect((await introspect(app, client, t.access_token)).body).toEqual({ active: false });
      const after = await http(app)
        .get('/v1/oauth2/@me/authorizations')
        .set('Authorization', someone.token);
      expect(after.body).toEqual([]);
      const again = await http(app)
        .delete(`/v1/oauth2/@me/authorizations/${client.id}`)
        .set('Authorization', someone.token);
      expect(again.status).toBe(404);
      expect(again.body.code).toBe('UNKNOWN_APPLICATION');
    });

    it('needs a session (401)', async () => {
      const list = await http(app).get('/v1/oauth2/@me/authorizations');
      expect(list.status).toBe(401);
      expect(list.body.code).toBe('UNAUTHORIZED');
      const del = await http(app).delete(`/v1/oauth2/@me/authorizations/${client.id}`);
      expect(del.status).toBe(401);
      expect(del.body.code).toBe('UNAUTHORIZED');
    });
  });

  describe('metadata', () => {
    it('serves RFC 8414 metadata at /v1 and at the root, and lists endpoints in discovery', async () => {
      for (const path of [
        '/v1/.well-known/oauth-authorization-server',
        '/.well-known/oauth-authorization-server',
      ]) {
        const res = await http(app).get(path);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          issuer: 'http://parley.test',
          authorization_endpoint: 'http://app.parley.test/oauth2/authorize',
          token_endpoint: 'http://parley.test/v1/oauth2/token',
          introspection_endpoint: 'http://parley.test/v1/oauth2/introspect',
          revocation_endpoint: 'http://parley.test/v1/oauth2/token/revoke',
          userinfo_endpoint: 'http://parley.test/v1/oauth2/userinfo',
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          code_challenge_methods_supported: ['S256'],
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
        });
      }
      const disco = await http(app).get('/.well-known/service');
      expect(disco.body.endpoints).toMatchObject({
        oauth2_authorization: 'http://app.parley.test/oauth2/authorize',
        oauth2_token: 'http://parley.test/v1/oauth2/token',
        oauth2_userinfo: 'http://parley.test/v1/oauth2/userinfo',
        oauth2_introspection: 'http://parley.test/v1/oauth2/introspect',
        oauth2_revocation: 'http://parley.test/v1/oauth2/token/revoke',
        oauth2_metadata: 'http://parley.test/.well-known/oauth-authorization-server',
      });
    });
  });
});

describe('OAuth2 in the OpenAPI document', () => {
  let app: ParleyApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('documents every OAuth2 route with an operation id, responses and security', async () => {
    const res = await http(app).get('/docs/openapi.json');
    const paths = res.body.paths as Record<string, Record<string, Record<string, unknown>>>;
    // The public OpenID Connect documents (JWKS, discovery) are checked below.
    const publicPaths = ['/v1/oauth2/keys'];
    const ops = Object.entries(paths)
      .filter(([p]) => /^\/v1\/(oauth2|applications\/@me|users\/@me\/applications)/.test(p))
      .filter(([p]) => !publicPaths.includes(p))
      .flatMap(([p, methods]) => Object.entries(methods).map(([m, op]) => ({ p, m, op })));
    // 20 with Discord's PATCH /applications/@me (the bot edits its application).
    expect(ops).toHaveLength(20);
    for (const { p, m, op } of ops) {
      const label = `${m} ${p}`;
      expect([label, op.operationId]).toEqual([label, expect.stringMatching(/^[a-z0-9_]+$/)]);
      const responses = Object.keys(op.responses as object);
      // 400 only where there is something to reject (a body, query or path parameters).
      const rejects =
        'requestBody' in op || ((op.parameters as unknown[] | undefined)?.length ?? 0) > 0;
      expect([label, responses]).toEqual([
        label,
        expect.arrayContaining([
          m === 'delete' ? '204' : '200',
          ...(rejects ? ['400'] : []),
          '401',
          '429',
        ]),
      ]);
      expect([label, (op.security as unknown[]).length > 0]).toEqual([label, true]);
      expect([label, op.summary]).toEqual([label, expect.stringMatching(/\w/)]);
    }
    const token = paths['/v1/oauth2/token'].post as {
      requestBody: { content: Record<string, unknown> };
      security: unknown[];
    };
    expect(Object.keys(token.requestBody.content).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
    expect(token.security).toEqual([{ clientBasic: [] }, {}]);
    expect(paths['/v1/.well-known/oauth-authorization-server'].get.operationId).toBe(
      'get_oauth2_authorization_server_metadata',
    );
    for (const [path, operationId, schema] of [
      ['/v1/oauth2/keys', 'get_oauth2_keys', 'JwksResponse'],
      [
        '/v1/.well-known/openid-configuration',
        'get_openid_configuration',
        'OidcConfigurationResponse',
      ],
    ]) {
      const op = paths[path].get as {
        operationId: string;
        summary: string;
        responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }>;
      };
      expect(op.operationId).toBe(operationId);
      expect(op.summary).toMatch(/\w/);
      expect(op.responses['200'].content['application/json'].schema.$ref).toBe(
        `#/components/schemas/${schema}`,
      );
    }
    expect(res.body.components.schemas.OAuth2TokenResponse.required).toEqual(
      expect.arrayContaining([
        'access_token',
        'token_type',
        'expires_in',
        'refresh_token',
        'scope',
      ]),
    );
  });
});

describe('OAuth2 consent adds the bot to a guild', () => {
  let app: ParleyApp;
  let db: DataSource;
  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
  });
  afterAll(() => app.close());

  const createGuild = async (user: TestUser) => {
    const res = await http(app)
      .post('/v1/guilds')
      .set('Authorization', user.token)
      .send({ name: 'Bot land' });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  it('joins the bot with a role carrying the requested permissions, then redirects', async () => {
    const owner = await registerUser(app);
    const user = await registerUser(app);
    const client = await createApplication(app, owner);
    const guildId = await createGuild(user);
    const res = await http(app)
      .post('/v1/oauth2/authorize/consent')
      .set('Authorization', user.token)
      .send({ client_id: client.id, scope: 'bot', guild_id: guildId, permissions: '2048' });
    expect(res.status).toBe(200);
    expect(res.body.redirect_to).toBe('http://app.parley.test/oauth2/authorized');
    // The bot is now a member: it can read the guild with its own token.
    const asBot = await http(app)
      .get(`/v1/guilds/${guildId}`)
      .set('Authorization', `Bot ${client.botToken}`);
    expect(asBot.status).toBe(200);
    expect(asBot.body.id).toBe(guildId);
    const roles = await db.query<Array<{ permissions: string }>>(
      `SELECT r.permissions::text AS permissions FROM guild_members m
         JOIN guild_roles r ON r.id = ANY(m.roles)
        WHERE m.guild_id = $1 AND m.user_id = $2`,
      [guildId, client.botUserId],
    );
    expect(roles).toEqual([{ permissions: '2048' }]);

    // A second consent (with a code) keeps one membership and still issues a code.
    const withCode = await consentCode(app, user, client, {
      scope: 'bot identify',
      guild_id: guildId,
    });
    expect(withCode.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const members = await db.query<unknown[]>(
      'SELECT 1 FROM guild_members WHERE guild_id = $1 AND user_id = $2',
      [guildId, client.botUserId],
    );
    expect(members).toHaveLength(1);
  });

  it('is one transaction: a consent that fails after the install leaves the bot out', async () => {
    const owner = await registerUser(app);
    const user = await registerUser(app);
    const client = await createApplication(app, owner);
    const guildId = await createGuild(user);
    // The bot has joined (inside the transaction) when issuing the code fails.
    const createCode = jest
      .spyOn(app.get(OAuth2TokensService), 'createCode')
      .mockRejectedValueOnce(new Error('injected failure'));
    try {
      const res = await http(app)
        .post('/v1/oauth2/authorize/consent')
        .set('Authorization', user.token)
        .send({
          client_id: client.id,
          scope: 'bot identify',
          redirect_uri: REDIRECT,
          guild_id: guildId,
          permissions: '2048',
        });
      expect(res.status).toBe(500);
      expect(res.body.code).toBe('INTERNAL_SERVER_ERROR');
      expect(createCode).toHaveBeenCalledTimes(1);
    } finally {
      createCode.mockRestore();
    }
    const bot = await db.query<unknown[]>(
      'SELECT 1 FROM guild_members WHERE guild_id = $1 AND user_id = $2',
      [guildId, client.botUserId],
    );
    expect(bot).toEqual([]);
    const roles = await db.query<unknown[]>(
      'SELECT 1 FROM guild_roles WHERE guild_id = $1 AND id <> guild_id',
      [guildId],
    );
    expect(roles).toEqual([]);
    const authorizations = await db.query<unknown[]>(
      'SELECT 1 FROM oauth2_authorizations WHERE user_id = $1 AND application_id = $2',
      [user.userId, client.id],
    );
    expect(authorizations).toEqual([]);
  });

  it('needs MANAGE_GUILD in the guild and membership', async () => {
    const owner = await registerUser(app);
    const guildOwner = await registerUser(app);
    const member = await registerUser(app);
    const stranger = await registerUser(app);
    const client = await createApplication(app, owner);
    const guildId = await createGuild(guildOwner);
    await addMember(app, guildId, member.userId);
    const send = (u: TestUser) =>
      http(app)
        .post('/v1/oauth2/authorize/consent')
        .set('Authorization', u.token)
        .send({ client_id: client.id, scope: 'bot', guild_id: guildId, permissions: '8' });
    const noPerm = await send(member);
    expect(noPerm.status).toBe(403);
    expect(noPerm.body.code).toBe('MISSING_PERMISSIONS');
    const notMember = await send(stranger);
    expect(notMember.status).toBe(404);
    expect(notMember.body.code).toBe('UNKNOWN_GUILD');
    // A refused install records nothing: no authorization, no code.
    const recorded = await db.query<unknown[]>(
      `SELECT 1 FROM oauth2_authorizations WHERE application_id = $1
       UNION ALL SELECT 1 FROM oauth2_codes WHERE application_id = $1`,
      [client.id],
    );
    expect(recorded).toEqual([]);
    const asBot = await http(app)
      .get(`/v1/guilds/${guildId}`)
      .set('Authorization', `Bot ${client.botToken}`);
    expect(asBot.status).toBe(404);
  });

  it('refuses a guild without the bot scope and a private bot for non-owners', async () => {
    const owner = await registerUser(app);
    const user = await registerUser(app);
    const client = await createApplication(app, owner, { bot_public: false });
    const guildId = await createGuild(owner);
    const noBot = await http(app)
      .post('/v1/oauth2/authorize/consent')
      .set('Authorization', user.token)
      .send({ client_id: client.id, scope: 'identify', redirect_uri: REDIRECT, guild_id: guildId });
    expect(noBot.status).toBe(400);
    expect(noBot.body.errors).toEqual([
      expect.objectContaining({ path: 'guild_id', code: 'BOT_SCOPE_REQUIRED' }),
    ]);
    const privateBot = await http(app)
      .post('/v1/oauth2/authorize/consent')
      .set('Authorization', user.token)
      .send({ client_id: client.id, scope: 'bot', guild_id: guildId });
    expect(privateBot.status).toBe(403);
    expect(privateBot.body.code).toBe('ACCESS_DENIED');
    const asOwner = await http(app)
      .post('/v1/oauth2/authorize/consent')
      .set('Authorization', owner.token)
      .send({ client_id: client.id, scope: 'bot', guild_id: guildId });
    expect(asOwner.status).toBe(200);
  });
});
