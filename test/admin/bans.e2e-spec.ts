import type { ParleyApp } from '../../src/app.setup';
import { DataSource } from 'typeorm';
import { ReverseDns } from '../../src/modules/admin/bans/reverse-dns';
import { createAdminKey, type TestAdminKey } from '../helpers/admin';
import { createTestApp, http, unique } from '../helpers/app';
import { registerUser } from '../helpers/factories';
import { createGuild, createWebhook } from '../helpers/guild-factories';

// The test client itself is 127.0.0.1 / ::1: never ban those. With TRUST_PROXY=1 the client
// address is the last X-Forwarded-For entry, so each request picks the address it comes from.
const APP_ENV = { TRUST_PROXY: '1', IP_AUTHORIZATION: 'off' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Admin bans', () => {
  let app: ParleyApp;
  let root: TestAdminKey;

  const admin = (path: string, body: object, reason?: string) => {
    const req = http(app).post(`/v1/admin/bans/${path}`).set('Authorization', root.header);
    if (reason) req.set('X-Audit-Log-Reason', encodeURIComponent(reason));
    return req.send(body);
  };
  const publicFrom = (ip: string, target = app) =>
    http(target).get('/v1/.well-known/service').set('X-Forwarded-For', ip);
  const IP_BANNED = { code: 'IP_BANNED', message: expect.any(String) };

  beforeAll(async () => {
    app = await createTestApp({ env: APP_ENV });
    root = await createAdminKey(app, ['*']);
  });
  afterAll(() => app.close());

  it('a single IPv4 address: 403 IP_BANNED on public, unknown and webhook routes; lifted by remove', async () => {
    const owner = await registerUser(app);
    const guild = await createGuild(app, owner.token);
    const hook = await createWebhook(app, owner.token, guild.channelId);

    expect((await publicFrom('198.51.100.7')).status).toBe(200);
    const add = await admin('ip/add', { ip: '198.51.100.7' }, 'credential stuffing');
    expect(add.status).toBe(204);
    expect(add.text).toBe('');

    const pub = await publicFrom('198.51.100.7');
    expect(pub.status).toBe(403);
    expect(pub.body).toEqual(IP_BANNED);
    const live = await http(app).get('/v1/health/live').set('X-Forwarded-For', '198.51.100.7');
    expect(live.status).toBe(403);
    const unknown = await http(app).get('/v1/no/such/route').set('X-Forwarded-For', '198.51.100.7');
    expect(unknown.status).toBe(403);
    expect(unknown.body).toEqual(IP_BANNED);
    const execute = await http(app)
      .post(`/v1/webhooks/${hook.id}/${hook.token}`)
      .set('X-Forwarded-For', '198.51.100.7')
      .send({ content: 'hello from a banned address' });
    expect(execute.status).toBe(403);
    expect(execute.body).toEqual(IP_BANNED);
    // An authenticated route too: the ban comes before credentials.
    const me = await http(app)
      .get('/v1/users/@me')
      .set('Authorization', owner.token)
      .set('X-Forwarded-For', '198.51.100.7');
    expect(me.status).toBe(403);

    // Neighbours and the test client pass.
    expect((await publicFrom('198.51.100.8')).status).toBe(200);
    const otherExecute = await http(app)
      .post(`/v1/webhooks/${hook.id}/${hook.token}`)
      .set('X-Forwarded-For', '198.51.100.8')
      .send({ content: 'hello' });
    expect(otherExecute.status).toBe(204);
    expect((await http(app).get('/v1/.well-known/service')).status).toBe(200);

    const check = await admin('ip/check', { ips: ['198.51.100.7', '198.51.100.8'] });
    expect(check.status).toBe(200);
    expect(check.body).toEqual({
      banned: true,
      results: [
        { value: '198.51.100.7', banned: true, range: '198.51.100.7/32' },
        { value: '198.51.100.8', banned: false, range: null },
      ],
    });

    // Adding again is idempotent.
    expect((await admin('ip/add', { ip: '198.51.100.7' })).status).toBe(204);

    const remove = await admin('ip/remove', { ip: '198.51.100.7' }, 'false positive');
    expect(remove.status).toBe(204);
    expect((await publicFrom('198.51.100.7')).status).toBe(200);
    const after = await admin('ip/check', { ip: '198.51.100.7' });
    expect(after.body).toEqual({
      banned: false,
      results: [{ value: '198.51.100.7', banned: false, range: null }],
    });
    expect((await admin('ip/remove', { ip: '198.51.100.7' })).status).toBe(204);

    const audit = await app.get(DataSource).query(
      `SELECT action, target_type, target_id, reason, actor_type, actor_id::text, actor_user_id::text
         FROM audit_log_entries WHERE target_type = 'ip' AND target_id = '198.51.100.7/32'
          AND actor_id = $1
        ORDER BY id`,
      // Other suites on this database may ban the same documentation address (it is the example).
      [root.keyId],
    );
    const actor = {
      target_type: 'ip',
      target_id: '198.51.100.7/32',
      actor_type: 'admin_key',
      actor_id: root.keyId,
      actor_user_id: root.owner.userId,
    };
    expect(audit).toEqual([
      { action: 'ban.ip.add', reason: 'credential stuffing', ...actor },
      { action: 'ban.ip.add', reason: null, ...actor },
      { action: 'ban.ip.remove', reason: 'false positive', ...actor },
      { action: 'ban.ip.remove', reason: null, ...actor },
    ]);
  });

  it('an IPv4 CIDR range, and a banned client cannot make the server parse a large body', async () => {
    expect((await admin('ip/add', { ips: ['203.0.113.0/24'] })).status).toBe(204);
    for (const ip of ['203.0.113.0', '203.0.113.77', '203.0.113.255', '::ffff:203.0.113.9']) {
      const res = await publicFrom(ip);
      expect({ ip, status: res.status, body: res.body }).toEqual({
        ip,
        status: 403,
        body: IP_BANNED,
      });
    }
    expect((await publicFrom('203.0.114.1')).status).toBe(200);
    expect((await publicFrom('203.0.112.255')).status).toBe(200);

    // 5 MiB of invalid JSON to the 25 MiB repohost route and 2 MiB (over the 1 MiB cap) to
    // registration: parsed, they would be a 400 INVALID_JSON and a 413; banned, they are a 403.
    const invalidJson = 'x'.repeat(5 * 1024 * 1024);
    const large = await http(app)
      .post('/v1/webhooks/1/token/repohost')
      .set('X-Forwarded-For', '203.0.113.50')
      .set('Content-Type', 'application/json')
      .send(invalidJson);
    expect(large.status).toBe(403);
    expect(large.body).toEqual(IP_BANNED);
    const tooLarge = JSON.stringify({ email: 'x'.repeat(2 * 1024 * 1024) });
    const big = await http(app)
      .post('/v1/auth/register')
      .set('X-Forwarded-For', '203.0.113.50')
      .set('Content-Type', 'application/json')
      .send(tooLarge);
    expect(big.status).toBe(403);
    expect(big.body).toEqual(IP_BANNED);
    // The same bodies from an address that is not banned get further: the webhook route to its
    // token check (an unknown webhook, still before the body is read), registration to its parser.
    const parsed = await http(app)
      .post('/v1/webhooks/1/token/repohost')
      .set('X-Forwarded-For', '203.0.114.50')
      .set('Content-Type', 'application/json')
      .send(invalidJson);
    expect(parsed.status).toBe(404);
    expect(parsed.body.code).toBe('UNKNOWN_WEBHOOK');
    const capped = await http(app)
      .post('/v1/auth/register')
      .set('X-Forwarded-For', '203.0.114.50')
      .set('Content-Type', 'application/json')
      .send(tooLarge);
    expect(capped.status).toBe(413);

    const check = await admin('ip/check', {
      ips: ['203.0.113.5', '203.0.113.128/25', '203.0.0.0/16', '192.0.2.1'],
    });
    expect(check.status).toBe(200);
    expect(check.body).toEqual({
      banned: true,
      results: [
        { value: '203.0.113.5', banned: true, range: '203.0.113.0/24' },
        { value: '203.0.113.128/25', banned: true, range: '203.0.113.0/24' },
        { value: '203.0.0.0/16', banned: false, range: null },
        { value: '192.0.2.1', banned: false, range: null },
      ],
    });

    // A narrower ban inside the range is reported as the closest match.
    expect((await admin('ip/add', { ip: '203.0.113.5' })).status).toBe(204);
    const narrow = await admin('ip/check', { ip: '203.0.113.5' });
    expect(narrow.body.results[0].range).toBe('203.0.113.5/32');
    // Removing the single address leaves the range in force.
    expect((await admin('ip/remove', { ip: '203.0.113.5' })).status).toBe(204);
    expect((await publicFrom('203.0.113.5')).status).toBe(403);

    expect((await admin('ip/remove', { ip: '203.0.113.0/24' })).status).toBe(204);
    expect((await publicFrom('203.0.113.77')).status).toBe(200);
  });

  it('an IPv6 /64', async () => {
    expect((await admin('ip/add', { ip: '2001:DB8:1:2::/64' })).status).toBe(204);
    for (const ip of ['2001:db8:1:2::1', '2001:db8:1:2:ffff:ffff:ffff:ffff']) {
      const res = await publicFrom(ip);
      expect({ ip, status: res.status, body: res.body }).toEqual({
        ip,
        status: 403,
        body: IP_BANNED,
      });
    }
    expect((await publicFrom('2001:db8:1:3::1')).status).toBe(200);
    expect((await publicFrom('2001:db8:1:1:ffff:ffff:ffff:ffff')).status).toBe(200);
    const check = await admin('ip/check', { ips: ['2001:db8:1:2::abcd', '2001:db8:1::/48'] });
    expect(check.body).toEqual({
      banned: true,
      results: [
        { value: '2001:db8:1:2::abcd', banned: true, range: '2001:db8:1:2::/64' },
        { value: '2001:db8:1::/48', banned: false, range: null },
      ],
    });
    expect((await admin('ip/remove', { ip: '2001:db8:1:2::/64' })).status).toBe(204);
    expect((await publicFrom('2001:db8:1:2::1')).status).toBe(200);
  });

  it('lists IP bans page by page with reverse DNS names, looked up within the time bound', async () => {
    const dns = app.get(ReverseDns);
    const lookup = jest.spyOn(dns, 'lookup').mockImplementation((_resolver, address) => {
      if (address === '192.0.2.10') return Promise.resolve('gw.example.net');
      // A resolver that never answers: the add must not wait for it.
      return new Promise<string | null>(() => undefined);
    });
    try {
      const started = Date.now();
      const add = await admin(
        'ip/add',
        { ips: ['192.0.2.10', '192.0.2.11', '192.0.2.128/25'] },
        'scraper farm',
      );
      expect(add.status).toBe(204);
      expect(Date.now() - started).toBeLessThan(2_000);
      // Ranges have no reverse name to look up.
      expect(lookup.mock.calls.map((c) => c[1]).sort()).toEqual(['192.0.2.10', '192.0.2.11']);
    } finally {
      lookup.mockRestore();
    }

    const seen: Array<Record<string, unknown>> = [];
    let cursor: string | undefined;
    let total = -1;
    for (let page = 0; page < 50; page++) {
      const res = await admin('ip/list', { limit: 2, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      expect(res.body.bans.length).toBeLessThanOrEqual(2);
      total = res.body.total;
      seen.push(...res.body.bans);
      if (res.body.next_cursor === null) break;
      expect(res.body.next_cursor).toMatch(/^\d+$/);
      cursor = res.body.next_cursor;
    }
    expect(total).toBeGreaterThanOrEqual(3);
    expect(seen).toHaveLength(total);
    expect(new Set(seen.map((b) => b.ip)).size).toBe(total);
    const fields = {
      reason: 'scraper farm',
      created_at: expect.any(String),
      created_by_key_id: root.keyId,
      created_by_user_id: root.owner.userId,
    };
    // Newest first: the three were added together, after whatever earlier tests left.
    expect(seen.slice(0, 3).sort((a, b) => String(a.ip).localeCompare(String(b.ip)))).toEqual([
      { ip: '192.0.2.10/32', reverse_dns: 'gw.example.net', ...fields },
      { ip: '192.0.2.11/32', reverse_dns: null, ...fields },
      { ip: '192.0.2.128/25', reverse_dns: null, ...fields },
    ]);

    const first = await admin('ip/list', {});
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      bans: expect.any(Array),
      total,
      next_cursor: null,
    });
    const bad = await admin('ip/list', { limit: 201, cursor: 'abc' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'cursor',
      'limit',
    ]);
    await admin('ip/remove', { ips: ['192.0.2.10', '192.0.2.11', '192.0.2.128/25'] });
  });

  it('a ban added through one instance is enforced by another within 1 s, and lifted likewise', async () => {
    const other = await createTestApp({ env: APP_ENV });
    try {
      const ip = '198.51.100.200';
      // Warm the other instance's cache with an "allowed" decision.
      expect((await publicFrom(ip, other)).status).toBe(200);
      expect((await publicFrom(ip, other)).status).toBe(200);

      const pollOther = async (status: number): Promise<number> => {
        const start = Date.now();
        for (;;) {
          const res = await publicFrom(ip, other);
          if (res.status === status) return Date.now() - start;
          if (Date.now() - start > 1_000) return Infinity;
          await sleep(25);
        }
      };

      expect((await admin('ip/add', { ip })).status).toBe(204);
      expect(await pollOther(403)).toBeLessThanOrEqual(1_000);
      // …and it stays refused (no stale decision comes back).
      expect((await publicFrom(ip, other)).status).toBe(403);

      expect((await admin('ip/remove', { ip })).status).toBe(204);
      expect(await pollOther(200)).toBeLessThanOrEqual(1_000);
      expect((await publicFrom(ip, other)).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('retroactive: ends the sessions last used from a banned range, and only with the flag', async () => {
    const register = (ip: string) =>
      http(app)
        .post('/v1/auth/register')
        .set('X-Forwarded-For', ip)
        .send({
          consent: true,
          date_of_birth: '1990-01-01',
          email: `${unique('r')}@example.com`,
          password: 'correct-horse-battery',
          username: unique('r_').slice(0, 32),
        });
    const victim = await register('100.64.5.9');
    const bystander = await register('100.64.6.1');
    const kept = await register('100.64.7.9');
    for (const r of [victim, bystander, kept]) expect(r.status).toBe(200);
    const me = (token: string) => http(app).get('/v1/users/@me').set('Authorization', token);
    expect((await me(victim.body.token)).status).toBe(200);

    expect(
      (await admin('ip/add', { ip: '100.64.5.0/24', retroactive: true }, 'botnet')).status,
    ).toBe(204);
    expect((await admin('ip/add', { ip: '100.64.7.0/24' })).status).toBe(204);

    // From an address that is not banned, the victim's token no longer works.
    const ended = await me(victim.body.token);
    expect(ended.status).toBe(401);
    expect(ended.body.code).toBe('UNAUTHORIZED');
    expect((await me(bystander.body.token)).status).toBe(200);
    // Without `retroactive`, sessions from the banned range survive (usable from elsewhere).
    expect((await me(kept.body.token)).status).toBe(200);

    const [entry] = await app
      .get(DataSource)
      .query(
        `SELECT metadata FROM audit_log_entries WHERE action = 'ban.ip.add' AND target_id = '100.64.5.0/24'`,
      );
    expect(entry.metadata).toMatchObject({ retroactive: true, sessions_ended: 1 });
    await admin('ip/remove', { ips: ['100.64.5.0/24', '100.64.7.0/24'] });
  });

  it('a banned e-mail address can neither register nor be set as a new address', async () => {
    const email = `${unique('banned')}@Example.com`;
    const add = await admin('email/add', { email: `  ${email.toUpperCase()} ` }, 'spam wave');
    expect(add.status).toBe(204);

    const register = await http(app)
      .post('/v1/auth/register')
      .send({
        consent: true,
        date_of_birth: '1990-01-01',
        email,
        password: 'correct-horse-battery',
        username: unique('e_').slice(0, 32),
      });
    expect(register.status).toBe(400);
    expect(register.body).toMatchObject({ code: 'INVALID_FORM_BODY' });
    expect(register.body.errors[0]).toEqual({
      path: 'email',
      code: 'EMAIL_BANNED',
      message: expect.any(String),
    });

    const user = await registerUser(app);
    const change = await http(app)
      .patch('/v1/users/@me')
      .set('Authorization', user.token)
      .send({ email: email.toLowerCase(), password: user.password });
    expect(change.status).toBe(400);
    expect(change.body.errors[0]).toEqual({
      path: 'email',
      code: 'EMAIL_BANNED',
      message: expect.any(String),
    });

    const check = await admin('email/check', { emails: [email, 'fine@example.com'] });
    expect(check.status).toBe(200);
    expect(check.body).toEqual({
      banned: true,
      results: [
        { value: email.toLowerCase(), banned: true },
        { value: 'fine@example.com', banned: false },
      ],
    });
    const list = await admin('email/list', { limit: 200 });
    expect(list.status).toBe(200);
    expect(list.body.bans).toContainEqual({
      email: email.toLowerCase(),
      reason: 'spam wave',
      created_at: expect.any(String),
      created_by_key_id: root.keyId,
      created_by_user_id: root.owner.userId,
    });

    const audit = await app
      .get(DataSource)
      .query(
        `SELECT action, target_type, target_id, reason FROM audit_log_entries WHERE target_type = 'email' AND target_id = $1`,
        [email.toLowerCase()],
      );
    expect(audit).toEqual([
      {
        action: 'ban.email.add',
        target_type: 'email',
        target_id: email.toLowerCase(),
        reason: 'spam wave',
      },
    ]);

    expect((await admin('email/remove', { emails: [email] })).status).toBe(204);
    const again = await http(app)
      .post('/v1/auth/register')
      .send({
        consent: true,
        date_of_birth: '1990-01-01',
        email,
        password: 'correct-horse-battery',
        username: unique('e_').slice(0, 32),
      });
    expect(again.status).toBe(200);
  });

  it('phone bans: add, check, list, remove', async () => {
    const phone = `+1415${String(Date.now()).slice(-7)}`;
    expect((await admin('phone/add', { phones: [phone, ` ${phone} `] }, 'sim farm')).status).toBe(
      204,
    );
    const check = await admin('phone/check', { phone });
    expect(check.body).toEqual({ banned: true, results: [{ value: phone, banned: true }] });
    const list = await admin('phone/list', {});
    expect(list.status).toBe(200);
    expect(list.body.bans).toContainEqual({
      phone,
      reason: 'sim farm',
      created_at: expect.any(String),
      created_by_key_id: root.keyId,
      created_by_user_id: root.owner.userId,
    });
    expect(list.body.total).toBeGreaterThanOrEqual(1);
    expect((await admin('phone/remove', { phone })).status).toBe(204);
    expect((await admin('phone/check', { phone })).body).toEqual({
      banned: false,
      results: [{ value: phone, banned: false }],
    });
  });

  it('bad addresses, ranges and phone numbers → 400 with field paths', async () => {
    const errorsOf = async (path: string, body: object) => {
      const res = await admin(path, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_FORM_BODY');
      return res.body.errors.map((e: { path: string; code: string }) => [e.path, e.code]);
    };
    expect(
      await errorsOf('ip/add', {
        ips: ['192.0.2.77', 'not-an-ip', '203.0.113.5/24', 42, '10.0.0.0/33', '::/0', '127.1'],
      }),
    ).toEqual([
      ['ips.1', 'INVALID_IP'],
      ['ips.2', 'INVALID_IP'],
      ['ips.3', 'BASE_TYPE_STRING'],
      ['ips.4', 'INVALID_IP'],
      ['ips.5', 'INVALID_IP'],
      ['ips.6', 'INVALID_IP'],
    ]);
    expect(await errorsOf('ip/check', { ip: '2001:db8::1/64' })).toEqual([['ip', 'INVALID_IP']]);
    expect(await errorsOf('ip/add', {})).toEqual([['root', 'BAN_VALUE_REQUIRED']]);
    expect(await errorsOf('ip/add', { ip: '192.0.2.1', ips: ['192.0.2.2'] })).toEqual([
      ['root', 'BAN_VALUE_REQUIRED'],
    ]);
    expect(await errorsOf('ip/remove', { ips: [] })).toEqual([['root', 'BAN_VALUE_REQUIRED']]);
    expect(await errorsOf('ip/add', { ip: 12 })).toEqual([['ip', 'BASE_TYPE_STRING']]);
    expect(await errorsOf('ip/add', { ip: '192.0.2.1', retroactive: 'yes' })).toEqual([
      ['retroactive', 'BASE_TYPE_BOOLEAN'],
    ]);
    const many = Array.from({ length: 101 }, (_, i) => `192.0.2.${i}`);
    expect(await errorsOf('ip/add', { ips: many })).toEqual([['ips', 'BASE_TYPE_MAX_LENGTH']]);
    expect(
      await errorsOf('phone/add', { phones: ['+14155550123', '4155550123', '+1 415 555 0123'] }),
    ).toEqual([
      ['phones.1', 'INVALID_PHONE'],
      ['phones.2', 'INVALID_PHONE'],
    ]);
    expect(await errorsOf('phone/check', { phone: '+0123456789' })).toEqual([
      ['phone', 'INVALID_PHONE'],
    ]);
    expect(await errorsOf('email/add', { emails: ['ok@example.com', 'nope'] })).toEqual([
      ['emails.1', 'INVALID_EMAIL'],
    ]);
    expect(await errorsOf('email/list', { limit: 0 })).toEqual([['limit', 'NUMBER_TYPE_MIN']]);

    // Nothing was banned by the refused requests.
    const check = await admin('ip/check', { ip: '192.0.2.77' });
    expect(check.body.banned).toBe(false);
  });

  describe('credentials and ACLs', () => {
    const ROUTES: Array<{ path: string; acl: string; body: object; ok: number }> = [
      { path: 'email/add', acl: 'ban:email:add', body: { email: 'acl@example.com' }, ok: 204 },
      { path: 'email/check', acl: 'ban:email:check', body: { email: 'acl@example.com' }, ok: 200 },
      { path: 'email/list', acl: 'ban:email:check', body: {}, ok: 200 },
      {
        path: 'email/remove',
        acl: 'ban:email:remove',
        body: { email: 'acl@example.com' },
        ok: 204,
      },
      { path: 'ip/add', acl: 'ban:ip:add', body: { ip: '192.0.2.222' }, ok: 204 },
      { path: 'ip/check', acl: 'ban:ip:check', body: { ip: '192.0.2.222' }, ok: 200 },
      { path: 'ip/list', acl: 'ban:ip:check', body: {}, ok: 200 },
      { path: 'ip/remove', acl: 'ban:ip:remove', body: { ip: '192.0.2.222' }, ok: 204 },
      { path: 'phone/add', acl: 'ban:phone:add', body: { phone: '+14155550999' }, ok: 204 },
      { path: 'phone/check', acl: 'ban:phone:check', body: { phone: '+14155550999' }, ok: 200 },
      { path: 'phone/list', acl: 'ban:phone:check', body: {}, ok: 200 },
      { path: 'phone/remove', acl: 'ban:phone:remove', body: { phone: '+14155550999' }, ok: 204 },
    ];

    it.each(ROUTES)('$path: 401 without a key, 403 without $acl, $ok with it', async (route) => {
      const url = `/v1/admin/bans/${route.path}`;
      const anonymous = await http(app).post(url).send(route.body);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual({ code: 'UNAUTHORIZED', message: expect.any(String) });

      const session = await registerUser(app);
      const user = await http(app).post(url).set('Authorization', session.token).send(route.body);
      expect(user.status).toBe(401);

      // Every other ban ACL, but not this one.
      const others = ROUTES.map((r) => r.acl).filter((a) => a !== route.acl);
      const without = await createAdminKey(app, [...new Set(others)]);
      const denied = await http(app)
        .post(url)
        .set('Authorization', without.header)
        .send(route.body);
      expect(denied.status).toBe(403);
      expect(denied.body).toMatchObject({ code: 'MISSING_ACL', required_acl: route.acl });

      const withAcl = await createAdminKey(app, [route.acl]);
      const ok = await http(app).post(url).set('Authorization', withAcl.header).send(route.body);
      expect(ok.status).toBe(route.ok);
    });
  });
});
