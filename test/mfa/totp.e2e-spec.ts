import type { ParleyApp } from '../../src/app.setup';
import { DataSource } from 'typeorm';
import { createTestApp, http, RELAXED_LIMITS } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { ageProofs, enableTotp, mfaTicketOf, totpCode } from '../helpers/mfa';

/**
 * TOTP and backup codes, with codes computed by an independent RFC 6238 implementation (otpauth):
 * enrolment, the login step (±1 step, no replay), backup codes, ticket exhaustion and expiry.
 */
describe('TOTP second factor', () => {
  let app: ParleyApp;
  let db: DataSource;
  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
  });
  afterAll(() => app.close());

  const ticketOf = async (user: TestUser): Promise<string> => {
    const login = await mfaTicketOf(app, user);
    expect(login).toMatchObject({ mfa: true, totp: true, allowed_methods: ['totp'] });
    return login.ticket;
  };
  const mfaLogin = (ticket: string, code: string) =>
    http(app).post('/v1/auth/login/mfa/totp').send({ ticket, code });
  /** As if the authenticator had been enrolled long ago: no step used yet. */
  const forgetUsedStep = (userId: string) =>
    db.query('UPDATE mfa_totp SET last_used_step = NULL WHERE user_id = $1', [userId]);

  it('sets up TOTP: a base32 seed and its otpauth URI, confirmed by a first code', async () => {
    const user = await registerUser(app);
    const setup = await http(app)
      .post('/v1/users/@me/mfa/totp/setup')
      .set('Authorization', user.token)
      .send({ password: user.password });
    expect(setup.status).toBe(200);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(setup.body.uri as string);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(setup.body.secret);
    expect(uri.searchParams.get('issuer')).toBe('Parley');
    expect(decodeURIComponent(uri.pathname)).toContain(user.email);

    const wrong = await http(app)
      .post('/v1/users/@me/mfa/totp/enable')
      .set('Authorization', user.token)
      .send({ code: totpCode(setup.body.secret as string, 3) });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('INVALID_MFA_CODE');
    const before = await http(app).get('/v1/users/@me').set('Authorization', user.token);
    expect(before.body).toMatchObject({ mfa_enabled: false, authenticator_types: [] });

    const enabled = await http(app)
      .post('/v1/users/@me/mfa/totp/enable')
      .set('Authorization', user.token)
      .send({ code: totpCode(setup.body.secret as string) });
    expect(enabled.status).toBe(200);
    expect(enabled.body.backup_codes).toHaveLength(10);
    for (const c of enabled.body.backup_codes as Array<{ code: string; consumed: boolean }>) {
      expect(c).toEqual({
        code: expect.stringMatching(/^[a-z0-9]{4}-[a-z0-9]{4}$/),
        consumed: false,
      });
    }
    const me = await http(app).get('/v1/users/@me').set('Authorization', user.token);
    expect(me.body).toMatchObject({ mfa_enabled: true, authenticator_types: [0] });

    const again = await http(app)
      .post('/v1/users/@me/mfa/totp/setup')
      .set('Authorization', user.token)
      .send({ password: user.password });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('TOTP_ALREADY_ENABLED');
    const audit = await db.query<Array<{ action: string }>>(
      "SELECT action FROM audit_log_entries WHERE target_id = $1 AND action LIKE 'mfa.%'",
      [user.userId],
    );
    expect(audit.map((a) => a.action)).toEqual(['mfa.totp.enable']);
  });

  it('enrolment asks for a proof once the login grace is over; enable needs a set-up first', async () => {
    const user = await registerUser(app);
    const early = await http(app)
      .post('/v1/users/@me/mfa/totp/enable')
      .set('Authorization', user.token)
      .send({ code: '123456' });
    expect(early.status).toBe(400);
    expect(early.body.code).toBe('TOTP_NOT_ENABLED');
    await ageProofs(app, user.userId);
    const bare = await http(app)
      .post('/v1/users/@me/mfa/totp/setup')
      .set('Authorization', user.token)
      .send({});
    expect(bare.status).toBe(400);
    expect(bare.body.errors[0]).toMatchObject({ path: 'password', code: 'PASSWORD_REQUIRED' });
    const wrong = await http(app)
      .post('/v1/users/@me/mfa/totp/setup')
      .set('Authorization', user.token)
      .send({ password: 'not-the-password' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0]).toMatchObject({
      path: 'password',
      code: 'PASSWORD_DOES_NOT_MATCH',
    });
  });

  it('accepts the codes of steps −1, 0 and +1 once each, refuses +3 and a replay', async () => {
    const user = await registerUser(app);
    const { secret } = await enableTotp(app, user);
    await forgetUsedStep(user.userId);

    const far = await mfaLogin(await ticketOf(user), totpCode(secret, 3));
    expect(far.status).toBe(400);
    expect(far.body.code).toBe('INVALID_MFA_CODE');

    for (const step of [-1, 0, 1]) {
      const res = await mfaLogin(await ticketOf(user), totpCode(secret, step));
      expect({ step, status: res.status }).toEqual({ step, status: 200 });
      expect(res.body).toEqual({ token: expect.any(String), user_id: user.userId });
      const me = await http(app)
        .get('/v1/users/@me')
        .set('Authorization', res.body.token as string);
      expect(me.body.id).toBe(user.userId);
    }
    // The +1 code again (a new ticket), and the 0 code (an earlier step): both replays.
    for (const step of [1, 0]) {
      const replay = await mfaLogin(await ticketOf(user), totpCode(secret, step));
      expect(replay.status).toBe(400);
      expect(replay.body.code).toBe('INVALID_MFA_CODE');
    }
  });

  it('a backup code works once, in any case and with or without its dash', async () => {
    const user = await registerUser(app);
    const { backupCodes } = await enableTotp(app, user);
    const first = await mfaLogin(await ticketOf(user), backupCodes[0]);
    expect(first.status).toBe(200);
    expect(first.body.user_id).toBe(user.userId);
    const again = await mfaLogin(await ticketOf(user), backupCodes[0]);
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('INVALID_MFA_CODE');
    const loose = await mfaLogin(
      await ticketOf(user),
      backupCodes[1].replace('-', '').toUpperCase(),
    );
    expect(loose.status).toBe(200);
  });

  it('5 wrong codes spend the ticket; the right code then fails', async () => {
    const user = await registerUser(app);
    const { secret } = await enableTotp(app, user);
    const ticket = await ticketOf(user);
    for (let i = 0; i < 5; i++) {
      const wrong = await mfaLogin(ticket, i % 2 ? '000000' : 'zzzz-zzzz');
      expect(wrong.status).toBe(400);
      expect(wrong.body.code).toBe('INVALID_MFA_CODE');
    }
    const spent = await mfaLogin(ticket, totpCode(secret));
    expect(spent.status).toBe(400);
    expect(spent.body.code).toBe('INVALID_MFA_TICKET');
    // A new ticket still works with the same code (the wrong codes were counted per ticket).
    const fresh = await mfaLogin(await ticketOf(user), totpCode(secret));
    expect(fresh.status).toBe(200);
  });

  it('refuses an expired, a used and an unknown ticket', async () => {
    const user = await registerUser(app);
    const { secret, backupCodes } = await enableTotp(app, user);
    const ticket = await ticketOf(user);
    await db.query(
      "UPDATE auth_tickets SET expires_at = now() - interval '1 second' WHERE user_id = $1",
      [user.userId],
    );
    const expired = await mfaLogin(ticket, totpCode(secret));
    expect(expired.status).toBe(400);
    expect(expired.body.code).toBe('INVALID_MFA_TICKET');

    const live = await ticketOf(user);
    expect((await mfaLogin(live, backupCodes[0])).status).toBe(200);
    const used = await mfaLogin(live, backupCodes[1]);
    expect(used.status).toBe(400);
    expect(used.body.code).toBe('INVALID_MFA_TICKET');

    const unknown = await mfaLogin('x'.repeat(43), backupCodes[1]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('INVALID_MFA_TICKET');
  });

  it('new backup codes replace the old ones', async () => {
    const user = await registerUser(app);
    const { backupCodes } = await enableTotp(app, user);
    const fresh = await http(app)
      .post('/v1/users/@me/mfa/backup-codes/regenerate')
      .set('Authorization', user.token)
      .send({ password: user.password });
    expect(fresh.status).toBe(200);
    const codes = (fresh.body.backup_codes as Array<{ code: string }>).map((c) => c.code);
    expect(codes).toHaveLength(10);
    expect(codes.filter((c) => backupCodes.includes(c))).toEqual([]);
    const old = await mfaLogin(await ticketOf(user), backupCodes[2]);
    expect(old.status).toBe(400);
    expect(old.body.code).toBe('INVALID_MFA_CODE');
    expect((await mfaLogin(await ticketOf(user), codes[2])).status).toBe(200);
  });

  it('disabling TOTP always asks for a proof, then login needs no second step', async () => {
    const user = await registerUser(app);
    const { secret } = await enableTotp(app, user);
    const bare = await http(app)
      .post('/v1/users/@me/mfa/totp/disable')
      .set('Authorization', user.token)
      .send({});
    expect(bare.status).toBe(400);
    expect(bare.body.errors[0].code).toBe('PASSWORD_REQUIRED');
    const off = await http(app)
      .post('/v1/users/@me/mfa/totp/disable')
      .set('Authorization', user.token)
      .send({ mfa_method: 'totp', mfa_code: totpCode(secret) });
    expect(off.status).toBe(204);
    const me = await http(app).get('/v1/users/@me').set('Authorization', user.token);
    expect(me.body).toMatchObject({ mfa_enabled: false, authenticator_types: [] });
    const rows = await db.query('SELECT 1 FROM mfa_backup_codes WHERE user_id = $1', [user.userId]);
    expect(rows).toEqual([]);
    const login = await http(app)
      .post('/v1/auth/login')
      .send({ email: user.email, password: user.password });
    expect(login.status).toBe(200);
    expect(login.body).toEqual({ token: expect.any(String), user_id: user.userId });
    const twice = await http(app)
      .post('/v1/users/@me/mfa/totp/disable')
      .set('Authorization', user.token)
      .send({ password: user.password });
    expect(twice.status).toBe(400);
    expect(twice.body.code).toBe('TOTP_NOT_ENABLED');
  });

  it.each([
    '/v1/users/@me/mfa/totp/setup',
    '/v1/users/@me/mfa/totp/enable',
    '/v1/users/@me/mfa/totp/disable',
    '/v1/users/@me/mfa/backup-codes/regenerate',
  ])('POST %s without credentials → 401', async (path) => {
    const res = await http(app).post(path).send({ password: 'x', code: '123456' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  it.each([
    ['an empty body', {}, 'ticket'],
    ['no code', { ticket: 'abc' }, 'code'],
    ['a numeric ticket', { ticket: 5, code: '123456' }, 'ticket'],
    ['a code array', { ticket: 'abc', code: ['123456'] }, 'code'],
    ['a 10 000-character code', { ticket: 'abc', code: 'x'.repeat(10_000) }, 'code'],
  ])('the login step refuses %s with 400', async (_label, body, path) => {
    const res = await http(app).post('/v1/auth/login/mfa/totp').send(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_FORM_BODY');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });
});

describe('the auth:login:mfa bucket', () => {
  let app: ParleyApp;
  beforeAll(async () => {
    app = await createTestApp({
      env: { RATE_LIMIT_OVERRIDES: `${RELAXED_LIMITS},auth:login:mfa=3/60s` },
    });
  });
  afterAll(() => app.close());

  it('limits the MFA login steps of one client, whatever the ticket', async () => {
    const statuses: number[] = [];
    for (const path of ['totp', 'sms', 'webauthn', 'totp']) {
      const res = await http(app)
        .post(`/v1/auth/login/mfa/${path}`)
        .send({ ticket: 'x'.repeat(43), code: '123456', challenge: 'c', response: { id: 'a' } });
      statuses.push(res.status);
      if (res.status === 429) expect(res.body.code).toBe('RATE_LIMITED');
    }
    expect(statuses).toEqual([400, 400, 400, 429]);
  });
});
