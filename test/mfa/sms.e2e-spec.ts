import type { ParleyApp } from '../../src/app.setup';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { LogSmsAdapter } from '../../src/infra/sms/log-sms.adapter';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { ageProofs, enableTotp, mfaTicketOf } from '../helpers/mfa';

let phones = 0;
/** A fresh E.164 number per call (the database is shared with the other suites). */
function newPhone(): string {
  phones += 1;
  const n = (Date.now() % 1_000_000) * 100 + ((process.pid + phones) % 100);
  return `+1555${String(n).padStart(8, '0')}`;
}

const masked = (phone: string) => phone.replace(/\d(?=\d{2})/g, '*');

/**
 * SMS as a second factor through the log adapter (codes read from its memory), and the
 * Twilio-compatible adapter against a local HTTP server that records what it receives.
 */
describe('SMS second factor', () => {
  let app: ParleyApp;
  let db: DataSource;
  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
  });
  afterAll(() => app.close());

  const codeSentTo = (phone: string, purpose: string): string => {
    const sms = app.get(LogSmsAdapter).last(phone, purpose);
    if (!sms) throw new Error(`no SMS to ${phone} for ${purpose}`);
    return /\b(\d{6})\b/.exec(sms.body)?.[1] as string;
  };
  const addPhone = async (user: TestUser, phone: string) => {
    const res = await http(app)
      .post('/v1/users/@me/mfa/phone')
      .set('Authorization', user.token)
      .send({ phone, password: user.password });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ phone: masked(phone) });
    const verified = await http(app)
      .post('/v1/users/@me/mfa/phone/verify')
      .set('Authorization', user.token)
      .send({ code: codeSentTo(phone, 'phone_verify') });
    expect(verified.status).toBe(200);
  };
  /** A user with TOTP, a verified phone and SMS MFA on. */
  const smsUser = async () => {
    const user = await registerUser(app);
    await enableTotp(app, user);
    const phone = newPhone();
    await addPhone(user, phone);
    const on = await http(app)
      .post('/v1/users/@me/mfa/sms/enable')
      .set('Authorization', user.token)
      .send({ password: user.password });
    expect(on.status).toBe(204);
    return { user, phone };
  };
  const ticketOf = (user: TestUser) =>
    mfaTicketOf(app, user) as Promise<{
      ticket: string;
      sms_phone_hint: string;
      allowed_methods: string[];
    }>;
  const send = (ticket: string) => http(app).post('/v1/auth/login/mfa/sms/send').send({ ticket });
  const redeem = (ticket: string, code: string) =>
    http(app).post('/v1/auth/login/mfa/sms').send({ ticket, code });

  it('verifies a phone, enables SMS MFA and logs in with a texted code', async () => {
    const { user, phone } = await smsUser();
    const me = await http(app).get('/v1/users/@me').set('Authorization', user.token);
    expect(me.body).toMatchObject({
      phone: masked(phone),
      mfa_enabled: true,
      authenticator_types: [0, 1],
    });

    const login = await ticketOf(user);
    expect(login).toMatchObject({
      mfa: true,
      totp: true,
      sms: true,
      webauthn: false,
      allowed_methods: ['totp', 'sms'],
      sms_phone_hint: masked(phone),
    });
    const sent = await send(login.ticket);
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ phone: masked(phone) });
    const text = app.get(LogSmsAdapter).last(phone, 'login');
    expect(text?.body).toMatch(/code is \d{6}\. It expires in 5 minutes/);

    const done = await redeem(login.ticket, codeSentTo(phone, 'login'));
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ token: expect.any(String), user_id: user.userId });
    const session = await http(app)
      .get('/v1/users/@me')
      .set('Authorization', done.body.token as string);
    expect(session.body.id).toBe(user.userId);
    // Spent with the login.
    const again = await redeem((await ticketOf(user)).ticket, codeSentTo(phone, 'login'));
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('INVALID_MFA_CODE');

    const audit = await db.query<Array<{ action: string }>>(
      "SELECT action FROM audit_log_entries WHERE target_id = $1 AND action LIKE 'mfa.%' ORDER BY id",
      [user.userId],
    );
    expect(audit.map((a) => a.action)).toEqual([
      'mfa.totp.enable',
      'mfa.phone.verify',
      'mfa.sms.enable',
    ]);
  });

  it('a code works only with the ticket it was sent for, before it expires', async () => {
    const { user, phone } = await smsUser();
    const first = await ticketOf(user);
    expect((await send(first.ticket)).status).toBe(200);
    const code = codeSentTo(phone, 'login');
    const other = await ticketOf(user);
    const crossed = await redeem(other.ticket, code);
    expect(crossed.status).toBe(400);
    expect(crossed.body.code).toBe('INVALID_MFA_CODE');
    const wrong = await redeem(first.ticket, code === '000000' ? '000001' : '000000');
    expect(wrong.body.code).toBe('INVALID_MFA_CODE');
    expect((await redeem(first.ticket, code)).status).toBe(200);

    const late = await ticketOf(user);
    await send(late.ticket);
    await db.query(
      "UPDATE mfa_sms_codes SET expires_at = now() - interval '1 second' WHERE user_id = $1",
      [user.userId],
    );
    const expired = await redeem(late.ticket, codeSentTo(phone, 'login'));
    expect(expired.status).toBe(400);
    expect(expired.body.code).toBe('INVALID_MFA_CODE');
  });

  it('SMS MFA needs a verified phone and TOTP; sending needs SMS MFA', async () => {
    const user = await registerUser(app);
    const noPhone = await http(app)
      .post('/v1/users/@me/mfa/sms/enable')
      .set('Authorization', user.token)
      .send({ password: user.password });
    expect(noPhone.status).toBe(400);
    expect(noPhone.body.code).toBe('PHONE_REQUIRED');
    await addPhone(user, newPhone());
    const noTotp = await http(app)
      .post('/v1/users/@me/mfa/sms/enable')
      .set('Authorization', user.token)
      .send({ password: user.password });
    expect(noTotp.status).toBe(400);
    expect(noTotp.body.code).toBe('TOTP_NOT_ENABLED');

    await enableTotp(app, user);
    const login = await ticketOf(user);
    expect(login.allowed_methods).toEqual(['totp']);
    const refused = await send(login.ticket);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('MFA_METHOD_UNAVAILABLE');
  });

  it('a wrong verification code does not set the phone; 5 wrong codes spend it', async () => {
    const user = await registerUser(app);
    const phone = newPhone();
    await http(app)
      .post('/v1/users/@me/mfa/phone')
      .set('Authorization', user.token)
      .send({ phone, password: user.password });
    const code = codeSentTo(phone, 'phone_verify');
    const wrongCode = code === '999999' ? '999998' : '999999';
    for (let i = 0; i < 5; i++) {
      const wrong = await http(app)
        .post('/v1/users/@me/mfa/phone/verify')
        .set('Authorization', user.token)
        .send({ code: wrongCode });
      expect(wrong.status).toBe(400);
      expect(wrong.body.code).toBe('INVALID_MFA_CODE');
    }
    const spent = await http(app)
      .post('/v1/users/@me/mfa/phone/verify')
      .set('Authorization', user.token)
      .send({ code });
    expect(spent.body.code).toBe('INVALID_MFA_CODE');
    const me = await http(app).get('/v1/users/@me').set('Authorization', user.token);
    expect(me.body.phone).toBeNull();
  });

  it('refuses a banned phone number on add and on sending a login code', async () => {
    const user = await registerUser(app);
    const banned = newPhone();
    await db.query('INSERT INTO phone_bans (id, phone) VALUES ($1, $2)', [
      String(BigInt(Date.now()) << 22n),
      banned,
    ]);
    const add = await http(app)
      .post('/v1/users/@me/mfa/phone')
      .set('Authorization', user.token)
      .send({ phone: banned, password: user.password });
    expect(add.status).toBe(400);
    expect(add.body.errors[0]).toMatchObject({ path: 'phone', code: 'PHONE_BANNED' });
    expect(app.get(LogSmsAdapter).last(banned)).toBeUndefined();

    const { user: enrolled, phone } = await smsUser();
    await db.query('INSERT INTO phone_bans (id, phone) VALUES ($1, $2)', [
      String((BigInt(Date.now()) << 22n) + 1n),
      phone,
    ]);
    const login = await ticketOf(enrolled);
    const refused = await send(login.ticket);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ path: 'phone', code: 'PHONE_BANNED' });
  });

  it('removing the phone turns SMS MFA off; disabling asks for a proof', async () => {
    const { user } = await smsUser();
    await ageProofs(app, user.userId);
    const bare = await http(app)
      .post('/v1/users/@me/mfa/sms/disable')
      .set('Authorization', user.token)
      .send({});
    expect(bare.status).toBe(400);
    expect(bare.body.errors[0].code).toBe('PASSWORD_REQUIRED');
    const removed = await http(app)
      .post('/v1/users/@me/mfa/phone/remove')
      .set('Authorization', user.token)
      .send({ password: user.password });
    expect(removed.status).toBe(204);
    const me = await http(app).get('/v1/users/@me').set('Authorization', user.token);
    expect(me.body).toMatchObject({ phone: null, mfa_enabled: true, authenticator_types: [0] });
  });

  it('keeps no SMS code in plaintext', async () => {
    const { user, phone } = await smsUser();
    const login = await ticketOf(user);
    await send(login.ticket);
    const code = codeSentTo(phone, 'login');
    // A 6-digit string occurs by chance in ids and numbers elsewhere in the shared database, so
    // the scan looks at the rows this flow wrote: the code row, the user and its audit entries.
    const rows = await db.query<Array<{ row: string }>>(
      `SELECT c::text AS row FROM mfa_sms_codes c WHERE user_id = $1
       UNION ALL SELECT encode(code_hash, 'hex') FROM mfa_sms_codes WHERE user_id = $1
       UNION ALL SELECT encode(code_hash, 'base64') FROM mfa_sms_codes WHERE user_id = $1
       UNION ALL SELECT a::text FROM audit_log_entries a WHERE target_id = $1::text`,
      [user.userId],
    );
    expect(rows.length).toBeGreaterThan(3);
    const hex = Buffer.from(code).toString('hex');
    for (const { row } of rows) {
      expect(row).not.toContain(code);
      expect(row).not.toContain(hex);
    }
    const hashed = await db.query<Array<{ n: number }>>(
      'SELECT octet_length(code_hash) AS n FROM mfa_sms_codes WHERE user_id = $1',
      [user.userId],
    );
    expect(hashed).toEqual([{ n: 32 }]);
  });

  it.each([
    '/v1/users/@me/mfa/phone',
    '/v1/users/@me/mfa/phone/verify',
    '/v1/users/@me/mfa/phone/remove',
    '/v1/users/@me/mfa/sms/enable',
    '/v1/users/@me/mfa/sms/disable',
  ])('POST %s without credentials → 401', async (path) => {
    const res = await http(app).post(path).send({ phone: '+15555550100', code: '123456' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  it.each([
    ['a local number', { phone: '5555550100' }, 'phone'],
    ['letters', { phone: '+1555CALLNOW' }, 'phone'],
    ['a number type', { phone: 15555550100 }, 'phone'],
  ])('refuses %s as a phone with 400', async (_label, body, path) => {
    const user = await registerUser(app);
    const res = await http(app)
      .post('/v1/users/@me/mfa/phone')
      .set('Authorization', user.token)
      .send({ ...body, password: user.password });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_FORM_BODY');
    expect(res.body.errors[0].path).toBe(path);
  });
});

describe('SMS through a Twilio-compatible provider', () => {
  let provider: Server;
  let received: Array<{ method: string; url: string; auth: string; type: string; body: string }>;
  let answer = 201;
  let app: ParleyApp;

  beforeAll(async () => {
    received = [];
    provider = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        received.push({
          method: req.method ?? '',
          url: req.url ?? '',
          auth: req.headers.authorization ?? '',
          type: req.headers['content-type'] ?? '',
          body,
        });
        res.writeHead(answer, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify(answer < 300 ? { sid: 'SM123', status: 'queued' } : { code: 20003 }),
        );
      });
    });
    provider.listen(0, '127.0.0.1');
    await once(provider, 'listening');
    const { port } = provider.address() as AddressInfo;
    app = await createTestApp({
      env: {
        SMS_PROVIDER: 'twilio',
        TWILIO_BASE_URL: `http://127.0.0.1:${port}/`,
        TWILIO_ACCOUNT_SID: 'AC0123456789abcdef',
        TWILIO_AUTH_TOKEN: 'twilio-auth-token',
        TWILIO_FROM: '+15005550006',
      },
    });
  });
  afterAll(async () => {
    await app.close();
    provider.close();
  });

  it('posts To, From and Body with Basic auth to the Messages resource', async () => {
    const user = await registerUser(app);
    const phone = newPhone();
    const res = await http(app)
      .post('/v1/users/@me/mfa/phone')
      .set('Authorization', user.token)
      .send({ phone, password: user.password });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ phone: masked(phone) });
    expect(received).toHaveLength(1);
    const [req] = received;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/2010-04-01/Accounts/AC0123456789abcdef/Messages.json');
    expect(req.auth).toBe(
      `Basic ${Buffer.from('AC0123456789abcdef:twilio-auth-token').toString('base64')}`,
    );
    expect(req.type).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(req.body);
    expect(form.get('To')).toBe(phone);
    expect(form.get('From')).toBe('+15005550006');
    const code = /\b(\d{6})\b/.exec(form.get('Body') ?? '')?.[1];
    expect(code).toMatch(/^\d{6}$/);
    // The texted code verifies the phone.
    const verified = await http(app)
      .post('/v1/users/@me/mfa/phone/verify')
      .set('Authorization', user.token)
      .send({ code });
    expect(verified.status).toBe(200);
  });

  it('answers 503 SMS_DELIVERY_FAILED when the provider refuses', async () => {
    answer = 401;
    try {
      const user = await registerUser(app);
      const res = await http(app)
        .post('/v1/users/@me/mfa/phone')
        .set('Authorization', user.token)
        .send({ phone: newPhone(), password: user.password });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ code: 'SMS_DELIVERY_FAILED', message: expect.any(String) });
    } finally {
      answer = 201;
    }
  });

  it('refuses to start without the Twilio credentials, naming the variable', async () => {
    await expect(
      createTestApp({ env: { SMS_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: 'AC1' } }),
    ).rejects.toThrow(/TWILIO_AUTH_TOKEN[\s\S]*TWILIO_FROM|TWILIO_FROM[\s\S]*TWILIO_AUTH_TOKEN/);
  });
});
