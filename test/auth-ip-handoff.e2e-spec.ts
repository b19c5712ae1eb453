import { fixtureQuery } from './helpers/fixtures';
import type { ParleyApp } from '../src/app.setup';
import { DataSource } from 'typeorm';
import { sha256 } from '../src/common/crypto/tokens';
import { createTestApp, http } from './helpers/app';
import { lastMail, mailToken } from './helpers/auth-helpers';
import { registerUser } from './helpers/factories';
import { enableTotp, totpCode } from './helpers/mfa';

describe('IP authorization', () => {
  let app: ParleyApp;
  beforeAll(async () => {
    app = await createTestApp({ env: { TRUST_PROXY: 'on', IP_AUTHORIZATION: 'on' } });
  });
  afterAll(() => app.close());

  const loginFrom = (ip: string, email: string, password: string) =>
    http(app).post('/v1/auth/login').set('X-Forwarded-For', ip).send({ email, password });
  const poll = (ticket: string) =>
    http(app).get('/v1/auth/ip-authorization/poll').query({ ticket });

  it('skips IP authorization for an account with MFA: the second factor is the proof', async () => {
    const user = await registerUser(app);
    const { secret } = await enableTotp(app, user);
    const login = await loginFrom('203.0.113.9', user.email, user.password);
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ mfa: true, totp: true });
    const done = await http(app)
      .post('/v1/auth/login/mfa/totp')
      .set('X-Forwarded-For', '203.0.113.9')
      .send({ ticket: login.body.ticket, code: totpCode(secret) });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ token: expect.any(String), user_id: user.userId });
    // The address passed a second factor: it is now known for the account.
    const known = await app
      .get(DataSource)
      .query('SELECT 1 FROM authorized_ips WHERE user_id = $1 AND ip = $2', [
        user.userId,
        '203.0.113.9',
      ]);
    expect(known).toHaveLength(1);
  });

  it('asks for authorization from a new IP, then hands out the session once', async () => {
    const user = await registerUser(app);
    // The registering IP (127.0.0.1, no X-Forwarded-For) is known.
    expect((await http(app).post('/v1/auth/login').send(user)).status).toBe(200);

    const denied = await loginFrom('203.0.113.7', user.email, user.password);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      code: 'IP_AUTHORIZATION_REQUIRED',
      message: expect.any(String),
      ticket: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      email: `${user.email[0]}***@example.com`,
      resend_available_in: 30,
    });
    const ticket = denied.body.ticket as string;
    const mail = lastMail(app, user.email, 'authorize_ip');
    expect(mail.text).toContain('http://app.parley.test/authorize-ip#token=');
    expect(mail.text).toContain('203.0.113.7');

    expect((await poll(ticket)).body).toEqual({ completed: false });
    const bad = await http(app)
      .post('/v1/auth/authorize-ip')
      .send({ token: 'B'.repeat(43) });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_EMAIL_TOKEN');

    const token = mailToken(app, user.email, 'authorize_ip');
    const ok = await http(app).post('/v1/auth/authorize-ip').send({ token });
    expect(ok.status).toBe(204);
    const reuse = await http(app).post('/v1/auth/authorize-ip').send({ token });
    expect(reuse.body.code).toBe('INVALID_EMAIL_TOKEN');

    const done = await poll(ticket);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ completed: true, token: expect.any(String), user_id: user.userId });
    const me = await http(app)
      .get('/v1/users/@me')
      .set('Authorization', done.body.token as string);
    expect(me.status).toBe(200);
    const consumed = await poll(ticket);
    expect(consumed.status).toBe(400);
    expect(consumed.body.code).toBe('INVALID_IP_AUTHORIZATION_TICKET');

    // The IP is now known: a direct login works.
    expect((await loginFrom('203.0.113.7', user.email, user.password)).status).toBe(200);
  });

  it('the poll completes the login like any other: its address is known afterwards', async () => {
    const user = await registerUser(app);
    const db = app.get(DataSource);
    const denied = await loginFrom('192.0.2.61', user.email, user.password);
    expect(denied.status).toBe(403);
    const link = mailToken(app, user.email, 'authorize_ip');
    await http(app).post('/v1/auth/authorize-ip').send({ token: link }).expect(204);
    const [{ t: beforePoll }] = await db.query<Array<{ t: string }>>(
      'SELECT clock_timestamp()::text AS t',
    );

    const done = await poll(denied.body.ticket as string);
    expect(done.body).toEqual({ completed: true, token: expect.any(String), user_id: user.userId });
    // The poll itself records the address (not only the link): a login completes in one place.
    const [known] = await db.query<Array<{ by_poll: boolean }>>(
      'SELECT last_used_at >= $3::timestamptz AS by_poll FROM authorized_ips WHERE user_id = $1 AND ip = $2',
      [user.userId, '192.0.2.61', beforePoll],
    );
    expect(known).toEqual({ by_poll: true });

    const again = await loginFrom('192.0.2.61', user.email, user.password);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ token: expect.any(String), user_id: user.userId });
  });

  it('a handed-off session does not make its address known', async () => {
    const user = await registerUser(app);
    const init = await http(app)
      .post('/v1/auth/handoff/initiate')
      .set('X-Forwarded-For', '192.0.2.62');
    const code = init.body.code as string;
    await http(app)
      .post('/v1/auth/handoff/complete')
      .set('Authorization', user.token)
      .send({ code, token: user.token, user_id: user.userId })
      .expect(204);
    const handedOff = await http(app).get(`/v1/auth/handoff/${code}/status`);
    expect(handedOff.body).toMatchObject({ status: 'completed', user_id: user.userId });
    const db = app.get(DataSource);
    const sessions = await db.query<Array<{ proven_at: Date | null }>>(
      'SELECT proven_at FROM auth_sessions WHERE user_id = $1 AND ip = $2',
      [user.userId, '192.0.2.62'],
    );
    expect(sessions).toEqual([{ proven_at: null }]);
    const known = await db.query('SELECT 1 FROM authorized_ips WHERE user_id = $1 AND ip = $2', [
      user.userId,
      '192.0.2.62',
    ]);
    expect(known).toHaveLength(0);
    expect((await loginFrom('192.0.2.62', user.email, user.password)).status).toBe(403);
  });

  it('does not challenge a wrong password (same answer as any failure)', async () => {
    const user = await registerUser(app);
    const res = await loginFrom('203.0.113.8', user.email, 'wrong-password');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_FORM_BODY');
  });

  it('does not challenge accounts with MFA', async () => {
    const user = await registerUser(app);
    await fixtureQuery(
      app.get(DataSource),
      `UPDATE users SET mfa_enabled = true, authenticator_types = '{0}' WHERE id = $1`,
      [user.userId],
    );
    const res = await loginFrom('203.0.113.9', user.email, user.password);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ mfa: true, allowed_methods: ['totp'] });
  });

  it('resends once, not before 30 s', async () => {
    const user = await registerUser(app);
    const denied = await loginFrom('198.51.100.4', user.email, user.password);
    const ticket = denied.body.ticket as string;
    const early = await http(app).post('/v1/auth/ip-authorization/resend').send({ ticket });
    expect(early.status).toBe(429);
    expect(early.body).toMatchObject({ code: 'RATE_LIMITED', global: false });
    expect(early.body.retry_after).toBeGreaterThanOrEqual(1);
    expect(early.body.retry_after).toBeLessThanOrEqual(30);
    expect(Number(early.headers['retry-after'])).toBe(early.body.retry_after);

    await app
      .get(DataSource)
      .query(
        `UPDATE auth_tickets SET last_sent_at = now() - interval '31 seconds' WHERE user_id = $1`,
        [user.userId],
      );
    const first = mailToken(app, user.email, 'authorize_ip');
    const resent = await http(app).post('/v1/auth/ip-authorization/resend').send({ ticket });
    expect(resent.status).toBe(204);
    const second = mailToken(app, user.email, 'authorize_ip');
    expect(second).not.toBe(first);
    await app
      .get(DataSource)
      .query(
        `UPDATE auth_tickets SET last_sent_at = now() - interval '31 seconds' WHERE user_id = $1`,
        [user.userId],
      );
    const twice = await http(app).post('/v1/auth/ip-authorization/resend').send({ ticket });
    expect(twice.status).toBe(429);
    // The resent link works.
    expect((await http(app).post('/v1/auth/authorize-ip').send({ token: second })).status).toBe(
      204,
    );
    expect((await poll(ticket)).body.completed).toBe(true);
  });

  it('rejects unknown and expired tickets', async () => {
    const unknown = await poll('C'.repeat(43));
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('INVALID_IP_AUTHORIZATION_TICKET');
    expect((await http(app).get('/v1/auth/ip-authorization/poll')).body.code).toBe(
      'INVALID_IP_AUTHORIZATION_TICKET',
    );
    const resend = await http(app)
      .post('/v1/auth/ip-authorization/resend')
      .send({ ticket: 'C'.repeat(43) });
    expect(resend.body.code).toBe('INVALID_IP_AUTHORIZATION_TICKET');

    const user = await registerUser(app);
    const denied = await loginFrom('198.51.100.5', user.email, user.password);
    const token = mailToken(app, user.email, 'authorize_ip');
    await app
      .get(DataSource)
      .query(
        `UPDATE auth_tickets SET expires_at = now() - interval '1 second' WHERE user_id = $1`,
        [user.userId],
      );
    expect((await poll(denied.body.ticket as string)).body.code).toBe(
      'INVALID_IP_AUTHORIZATION_TICKET',
    );
    const late = await http(app).post('/v1/auth/authorize-ip').send({ token });
    expect(late.status).toBe(400);
    expect(late.body.code).toBe('INVALID_EMAIL_TOKEN');
  });

  it('is skipped when IP_AUTHORIZATION=off', async () => {
    const off = await createTestApp({ env: { TRUST_PROXY: 'on', IP_AUTHORIZATION: 'off' } });
    try {
      const user = await registerUser(off);
      const res = await http(off)
        .post('/v1/auth/login')
        .set('X-Forwarded-For', '192.0.2.44')
        .send({ email: user.email, password: user.password });
      expect(res.status).toBe(200);
    } finally {
      await off.close();
    }
  });
});

describe('device handoff', () => {
  let app: ParleyApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  const status = (code: string) =>
    http(app).get(`/v1/auth/handoff/${encodeURIComponent(code)}/status`);

  it('pending → completed (once) → expired', async () => {
    const user = await registerUser(app);
    const init = await http(app).post('/v1/auth/handoff/initiate');
    expect(init.status).toBe(200);
    expect(init.body).toEqual({
      code: expect.stringMatching(/^[A-HJ-KMNP-Z2-9]{4}-[A-HJ-KMNP-Z2-9]{4}$/),
      expires_at: expect.any(String),
    });
    const ttl = Date.parse(init.body.expires_at as string) - Date.now();
    expect(ttl).toBeGreaterThan(290_000);
    expect(ttl).toBeLessThanOrEqual(300_000);
    const code = init.body.code as string;
    expect((await status(code)).body).toEqual({ status: 'pending' });

    // Codes are normalized: lower case, no dash, spaces.
    const typed = ` ${code.toLowerCase().replace('-', ' ')} `;
    const done = await http(app)
      .post('/v1/auth/handoff/complete')
      .set('Authorization', user.token)
      .send({ code: typed, token: user.token, user_id: user.userId });
    expect(done.status).toBe(204);
    const again = await http(app)
      .post('/v1/auth/handoff/complete')
      .set('Authorization', user.token)
      .send({ code, token: user.token, user_id: user.userId });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('INVALID_HANDOFF_CODE');

    const result = await status(code.replace('-', ''));
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      status: 'completed',
      token: expect.any(String),
      user_id: user.userId,
    });
    expect(result.body.token).not.toBe(user.token);
    expect(
      (
        await http(app)
          .get('/v1/users/@me')
          .set('Authorization', result.body.token as string)
      ).status,
    ).toBe(200);
    expect((await status(code)).body).toEqual({ status: 'expired' });
    const row = await app
      .get(DataSource)
      .query<Array<{ sealed_token: string | null; read_at: Date }>>(
        'SELECT sealed_token, read_at FROM auth_handoffs WHERE code_hash = $1',
        [sha256(code.replace('-', ''))],
      );
    expect(row[0]).toEqual({ sealed_token: null, read_at: expect.any(Date) });
  });

  it('refuses a token or user_id that is not the caller’s', async () => {
    const user = await registerUser(app);
    const other = await registerUser(app);
    const { code } = (await http(app).post('/v1/auth/handoff/initiate')).body as { code: string };
    const wrongUser = await http(app)
      .post('/v1/auth/handoff/complete')
      .set('Authorization', user.token)
      .send({ code, token: user.token, user_id: other.userId });
    expect(wrongUser.status).toBe(403);
    expect(wrongUser.body.code).toBe('ACCESS_DENIED');
    const wrongToken = await http(app)
      .post('/v1/auth/handoff/complete')
      .set('Authorization', user.token)
      .send({ code, token: other.token, user_id: user.userId });
    expect(wrongToken.status).toBe(403);
    expect(wrongToken.body.code).toBe('ACCESS_DENIED');
    expect((await status(code)).body).toEqual({ status: 'pending' });
  });

  it('expires at TTL and rejects unknown codes', async () => {
    const user = await registerUser(app);
    const { code } = (await http(app).post('/v1/auth/handoff/initiate')).body as { code: string };
    await app
      .get(DataSource)
      .query(
        `UPDATE auth_handoffs SET expires_at = now() - interval '1 second' WHERE code_hash = $1`,
        [sha256(code.replace('-', ''))],
      );
    expect((await status(code)).body).toEqual({ status: 'expired' });
    const late = await http(app)
      .post('/v1/auth/handoff/complete')
      .set('Authorization', user.token)
      .send({ code, token: user.token, user_id: user.userId });
    expect(late.status).toBe(400);
    expect(late.body.code).toBe('HANDOFF_CODE_EXPIRED');

    const unknown = await status('ZZZZ-ZZZZ');
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('INVALID_HANDOFF_CODE');
    const malformed = await status('0OI1-xxxx');
    expect(malformed.body.code).toBe('INVALID_HANDOFF_CODE');
  });

  it('complete needs a session (401)', async () => {
    const res = await http(app)
      .post('/v1/auth/handoff/complete')
      .send({ code: 'ABCD-EFGH', token: 'x', user_id: '1' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });
});
