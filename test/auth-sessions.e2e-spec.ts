import { fixtureQuery } from './helpers/fixtures';
import type { ParleyApp } from '../src/app.setup';
import { DataSource } from 'typeorm';
import { sha256Base64Url } from '../src/common/crypto/tokens';
import { createTestApp, http, unique } from './helpers/app';
import { lastMail, mailToken } from './helpers/auth-helpers';
import { registerUser } from './helpers/factories';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

describe('sessions, account update, MFA-required login, suggestions, login brake', () => {
  let app: ParleyApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  const login = (email: string, password: string, ua?: string) => {
    const req = http(app).post('/v1/auth/login');
    if (ua) void req.set('User-Agent', ua);
    return req.send({ email, password });
  };

  describe('GET /auth/sessions', () => {
    it('lists the sessions with id_hash, client_info and current', async () => {
      const user = await registerUser(app);
      const second = await login(user.email, user.password, CHROME);
      expect(second.status).toBe(200);
      const res = await http(app).get('/v1/auth/sessions').set('Authorization', user.token);
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(2);
      const mine = res.body.find((s: { current: boolean }) => s.current);
      expect(mine.id_hash).toBe(sha256Base64Url(user.token));
      const other = res.body.find((s: { current: boolean }) => !s.current);
      expect(other).toEqual({
        id_hash: sha256Base64Url(second.body.token),
        approx_last_used_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        client_info: { browser: 'Chrome', os: 'Windows 10', platform: 'desktop', location: null },
        current: false,
      });
      // The view from the other session flips `current`.
      const fromOther = await http(app)
        .get('/v1/auth/sessions')
        .set('Authorization', second.body.token);
      expect(fromOther.body.find((s: { current: boolean }) => s.current).id_hash).toBe(
        sha256Base64Url(second.body.token),
      );
    });

    it('needs a session (401)', async () => {
      const res = await http(app).get('/v1/auth/sessions');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    });
  });

  describe('POST /auth/sessions/logout', () => {
    it('revokes exactly the listed sessions of the caller', async () => {
      const user = await registerUser(app);
      const a = (await login(user.email, user.password)).body.token as string;
      const b = (await login(user.email, user.password)).body.token as string;
      const stranger = await registerUser(app);
      const res = await http(app)
        .post('/v1/auth/sessions/logout')
        .set('Authorization', user.token)
        .send({
          // Another user's hash and garbage are ignored.
          session_id_hashes: [sha256Base64Url(a), sha256Base64Url(stranger.token), 'nope'],
          password: user.password,
        });
      expect(res.status).toBe(204);
      expect(res.body).toEqual({});
      const me = (t: string) => http(app).get('/v1/users/@me').set('Authorization', t);
      expect((await me(a)).status).toBe(401);
      expect((await me(b)).status).toBe(200);
      expect((await me(user.token)).status).toBe(200);
      expect((await me(stranger.token)).status).toBe(200);
      const list = await http(app).get('/v1/auth/sessions').set('Authorization', user.token);
      expect(list.body).toHaveLength(2);
    });

    it('needs no password within 5 minutes of a login on the same session', async () => {
      const user = await registerUser(app);
      const other = (await login(user.email, user.password)).body.token as string;
      const res = await http(app)
        .post('/v1/auth/sessions/logout')
        .set('Authorization', user.token)
        .send({ session_id_hashes: [sha256Base64Url(other)] });
      expect(res.status).toBe(204);
      expect((await http(app).get('/v1/users/@me').set('Authorization', other)).status).toBe(401);
    });

    it('requires the right password once the login is older than 5 minutes', async () => {
      const user = await registerUser(app);
      await app
        .get(DataSource)
        .query(
          "UPDATE auth_sessions SET proven_at = now() - interval '6 minutes' WHERE user_id = $1",
          [user.userId],
        );
      const body = { session_id_hashes: [sha256Base64Url(user.token)] };
      const missing = await http(app)
        .post('/v1/auth/sessions/logout')
        .set('Authorization', user.token)
        .send(body);
      expect(missing.status).toBe(400);
      expect(missing.body.code).toBe('INVALID_FORM_BODY');
      expect(missing.body.errors[0]).toMatchObject({ path: 'password', code: 'PASSWORD_REQUIRED' });
      const wrong = await http(app)
        .post('/v1/auth/sessions/logout')
        .set('Authorization', user.token)
        .send({ ...body, password: 'wrong-password' });
      expect(wrong.status).toBe(400);
      expect(wrong.body.errors).toEqual([
        expect.objectContaining({ path: 'password', code: 'PASSWORD_DOES_NOT_MATCH' }),
      ]);
      expect((await http(app).get('/v1/users/@me').set('Authorization', user.token)).status).toBe(
        200,
      );
    });

    it('accepts at most 100 hashes', async () => {
      const user = await registerUser(app);
      const res = await http(app)
        .post('/v1/auth/sessions/logout')
        .set('Authorization', user.token)
        .send({ session_id_hashes: Array.from({ length: 101 }, (_, i) => `h${i}`), password: 'x' });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({
        path: 'session_id_hashes',
        code: 'BASE_TYPE_MAX_LENGTH',
      });
    });

    it('needs a session (401)', async () => {
      const res = await http(app)
        .post('/v1/auth/sessions/logout')
        .send({ session_id_hashes: [], password: 'x' });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    });
  });

  describe('POST /auth/logout', () => {
    it('needs a session (401)', async () => {
      const res = await http(app).post('/v1/auth/logout');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    });
  });

  describe('PATCH /users/@me', () => {
    it('changes global_name and username, keeping the discriminator when free', async () => {
      const user = await registerUser(app);
      const before = await http(app).get('/v1/users/@me').set('Authorization', user.token);
      const name = unique('ren_').slice(0, 32);
      const res = await http(app)
        .patch('/v1/users/@me')
        .set('Authorization', user.token)
        .send({ username: name, global_name: 'New Name' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: user.userId,
        username: name,
        global_name: 'New Name',
        discriminator: before.body.discriminator,
        email: user.email,
      });
      const cleared = await http(app)
        .patch('/v1/users/@me')
        .set('Authorization', user.token)
        .send({ global_name: null });
      expect(cleared.body.global_name).toBeNull();
    });

    it('re-allocates the discriminator when the new name has it taken', async () => {
      const a = await registerUser(app);
      const b = await registerUser(app);
      const aMe = await http(app).get('/v1/users/@me').set('Authorization', a.token);
      await fixtureQuery(app.get(DataSource), 'UPDATE users SET discriminator = $1 WHERE id = $2', [
        aMe.body.discriminator,
        b.userId,
      ]);
      const res = await http(app)
        .patch('/v1/users/@me')
        .set('Authorization', b.token)
        .send({ username: a.username.toUpperCase() });
      expect(res.status).toBe(200);
      expect(res.body.username).toBe(a.username.toUpperCase());
      expect(res.body.discriminator).toMatch(/^\d{4}$/);
      expect(res.body.discriminator).not.toBe(aMe.body.discriminator);
    });

    it('changes the password with the current one; other sessions end', async () => {
      const user = await registerUser(app);
      const other = (await login(user.email, user.password)).body.token as string;
      const missing = await http(app)
        .patch('/v1/users/@me')
        .set('Authorization', user.token)
        .send({ new_password: 'brand-new-password' });
      expect(missing.status).toBe(400);
      expect(missing.body.errors).toEqual([
        expect.objectContaining({ path: 'password', code: 'PASSWORD_REQUIRED' }),
      ]);
      const wrong = await http(app)
        .patch('/v1/users/@me')
        .set('Authorization', user.token)
        .send({ new_password: 'brand-new-password', password: 'wrong-password' });
      expect(wrong.status).toBe(400);
      expect(wrong.body.errors[0].code).toBe('PASSWORD_DOES_NOT_MATCH');
      const short = await http(app)
        .patch('/v1/users/@me')
        .set('Authorization', user.token)
        .send({ new_password: 'short', password: user.password });
      expect(short.status).toBe(400);
      expect(short.body.errors[0]).toMatchObject({ path: 'new_password', code: 'PASSWORD_LENGTH' });
      const ok = await http(app)
        .patch('/v1/users/@me')
        .set('Authorization', user.token)
        .send({ new_password: 'brand-new-password', password: user.password });
      expect(ok.status).toBe(200);
      expect((await http(app).get('/v1/users/@me').set('Authorization', other)).status).toBe(401);
      expect((await http(app).get('/v1/users/@me').set('Authorization', user.token)).status).toBe(
        200,
      );
      expect((await login(user.email, user.password)).status).toBe(400);
      expect((await login(user.email, 'brand-new-password')).status).toBe(200);
    });

    it('changes the e-mail: verification to the new address, revert to the old one', async () => {
      const user = await registerUser(app);
      const newEmail = `${unique('new')}@example.com`;
      const noPassword = await http(app)
        .patch('/v1/users/@me')
        .set('Authorization', user.token)
        .send({ email: newEmail });
      expect(noPassword.status).toBe(400);
      expect(noPassword.body.errors[0].code).toBe('PASSWORD_REQUIRED');
      const res = await http(app)
        .patch('/v1/users/@me')
        .set('Authorization', user.token)
        .send({ email: newEmail, password: user.password });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ email: newEmail, verified: false });
      expect(lastMail(app, newEmail, 'verify').subject).toMatch(/verify/i);
      expect(lastMail(app, user.email, 'email_revert').text).toContain(
        'http://app.parley.test/email-revert#token=',
      );
      // The new address's link verifies it.
      const verify = await http(app)
        .post('/v1/auth/verify')
        .send({ token: mailToken(app, newEmail, 'verify') });
      expect(verify.body).toEqual({});
      expect(verify.status).toBe(204);
      const me = await http(app).get('/v1/users/@me').set('Authorization', user.token);
      expect(me.body).toMatchObject({ email: newEmail, verified: true });
      // The registration mail to the old address is now void.
      const stale = await http(app)
        .post('/v1/auth/verify')
        .send({ token: mailToken(app, user.email, 'verify') });
      expect(stale.status).toBe(400);
      expect(stale.body.code).toBe('INVALID_EMAIL_TOKEN');
    });

    it('refuses an address another account has', async () => {
      const a = await registerUser(app);
      const b = await registerUser(app);
      const res = await http(app)
        .patch('/v1/users/@me')
        .set('Authorization', b.token)
        .send({ email: a.email.toUpperCase(), password: b.password });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        expect.objectContaining({ path: 'email', code: 'EMAIL_ALREADY_REGISTERED' }),
      ]);
    });

    it('validates fields', async () => {
      const user = await registerUser(app);
      const res = await http(app)
        .patch('/v1/users/@me')
        .set('Authorization', user.token)
        .send({ username: 'a b', email: 'nope', global_name: '' });
      expect(res.status).toBe(400);
      const paths = res.body.errors.map((e: { path: string }) => e.path);
      expect(paths).toEqual(expect.arrayContaining(['username', 'email', 'global_name']));
    });

    it('needs a session (401)', async () => {
      const res = await http(app).patch('/v1/users/@me').send({ global_name: 'x' });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    });
  });

  describe('login with MFA', () => {
    it('answers the MFA-required shape with a stored, hashed, 5-minute ticket', async () => {
      const user = await registerUser(app);
      const db = app.get(DataSource);
      await fixtureQuery(
        db,
        `UPDATE users SET mfa_enabled = true, authenticator_types = '{0,1}', phone = '+15551234567' WHERE id = $1`,
        [user.userId],
      );
      const res = await login(user.email, user.password);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        mfa: true,
        ticket: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        allowed_methods: ['totp', 'sms'],
        totp: true,
        sms: true,
        webauthn: false,
        sms_phone_hint: '+*********67',
      });
      const rows = await db.query<Array<{ kind: string; ttl: number; used_at: null }>>(
        `SELECT kind, extract(epoch FROM expires_at - created_at)::int AS ttl, used_at
           FROM auth_tickets WHERE ticket_hash = $1`,
        [Buffer.from(sha256Base64Url(res.body.ticket as string), 'base64url')],
      );
      expect(rows).toEqual([{ kind: 'mfa', ttl: expect.any(Number), used_at: null }]);
      expect(rows[0].ttl).toBeGreaterThanOrEqual(299);
      expect(rows[0].ttl).toBeLessThanOrEqual(301);
      // No session was minted.
      const sessions = await http(app).get('/v1/auth/sessions').set('Authorization', user.token);
      expect(sessions.body).toHaveLength(1);
    });
  });

  describe('login brake (per account and address: test/security/logins.e2e-spec.ts)', () => {
    it('answers 429 after 5 failures for that account from this address, even with the right password', async () => {
      const user = await registerUser(app);
      for (let i = 0; i < 5; i++) {
        const res = await login(user.email, 'wrong-password');
        expect(res.status).toBe(400);
      }
      const blocked = await login(user.email.toUpperCase(), user.password);
      expect(blocked.status).toBe(429);
      expect(blocked.body).toEqual({
        code: 'RATE_LIMITED',
        message: expect.any(String),
        retry_after: expect.any(Number),
        global: false,
      });
      expect(blocked.body.retry_after).toBeGreaterThan(800);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(800);
      // Other addresses are unaffected.
      const other = await registerUser(app);
      expect((await login(other.email, other.password)).status).toBe(200);
    });

    it('lets successful logins through with fewer than 5 failures', async () => {
      const user = await registerUser(app);
      for (let i = 0; i < 4; i++)
        expect((await login(user.email, 'bad-password')).status).toBe(400);
      for (let i = 0; i < 3; i++) expect((await login(user.email, user.password)).status).toBe(200);
    });

    it('clears the count on a successful login', async () => {
      const user = await registerUser(app);
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 4; i++)
          expect((await login(user.email, 'bad-password')).status).toBe(400);
        expect((await login(user.email, user.password)).status).toBe(200);
      }
    });

    it('shares the count across instances through Redis', async () => {
      const env = { REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' };
      const a = await createTestApp({ env });
      const b = await createTestApp({ env });
      try {
        const user = await registerUser(a);
        const attempt = (target: ParleyApp, password: string) =>
          http(target).post('/v1/auth/login').send({ email: user.email, password });
        for (let i = 0; i < 5; i++) {
          expect((await attempt(i % 2 ? a : b, 'wrong-password')).status).toBe(400);
        }
        const blocked = await attempt(a, user.password);
        expect(blocked.status).toBe(429);
        expect(blocked.body.code).toBe('RATE_LIMITED');
        expect((await attempt(b, user.password)).status).toBe(429);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });

  describe('POST /auth/username-suggestions', () => {
    it.each([
      ['Zoë Łukasz', 'zoe_lukasz'],
      ['Привет', 'privet'],
      ['山田太郎', null],
    ])('suggests ASCII usernames for %s', async (globalName, first) => {
      const res = await http(app)
        .post('/v1/auth/username-suggestions')
        .send({ global_name: globalName });
      expect(res.status).toBe(200);
      const s = res.body.suggestions as string[];
      expect(s.length).toBeGreaterThanOrEqual(3);
      expect(s.length).toBeLessThanOrEqual(5);
      expect(new Set(s).size).toBe(s.length);
      for (const name of s) expect(name).toMatch(/^[a-z0-9_]{2,32}$/);
      if (first) expect(s[0]).toBe(first);
    });

    it('skips usernames whose discriminators are exhausted', async () => {
      const name = unique('full')
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '')
        .slice(0, 20);
      // Fill all 9999 discriminators of `name` in one statement.
      await app.get(DataSource).query(
        `INSERT INTO users (id, username, discriminator)
           SELECT 9000000000000000000 + (extract(epoch from clock_timestamp())::bigint % 100000) * 10000 + d, $1, lpad(d::text, 4, '0')
             FROM generate_series(1, 9999) d`,
        [name],
      );
      const res = await http(app).post('/v1/auth/username-suggestions').send({ global_name: name });
      expect(res.status).toBe(200);
      expect(res.body.suggestions).not.toContain(name);
      expect(res.body.suggestions.length).toBeGreaterThan(0);
    });

    it('validates the body', async () => {
      const res = await http(app).post('/v1/auth/username-suggestions').send({});
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('global_name');
    });
  });
});
