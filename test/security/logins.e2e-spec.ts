import type { ParleyApp } from '../../src/app.setup';
import { createTestApp, http, RELAXED_LIMITS, unique } from '../helpers/app';
import { mailbox } from '../helpers/auth-helpers';
import type { TestUser } from '../helpers/factories';

/**
 * Security finding 7: anyone could lock an account out for 15 minutes with five wrong passwords.
 * Failed attempts now count per account **and** address: a stranger's failures block only the
 * stranger; many strangers together only space the account's logins out (seconds, never minutes),
 * and never for an address the owner has logged in from. Password-reset mails are limited per
 * target mailbox as well as per sender.
 */
describe('failed logins count against the caller, not the account', () => {
  let app: ParleyApp;

  beforeAll(async () => {
    // Per-address buckets relaxed: what is tested here is keyed by the account or the mailbox.
    app = await createTestApp({ env: { TRUST_PROXY: 'on', RATE_LIMIT_OVERRIDES: RELAXED_LIMITS } });
  });
  afterAll(() => app.close());

  /** Registers from `ip`, which becomes an address the account has logged in from. */
  async function registerFrom(ip: string): Promise<TestUser> {
    const username = unique('u_').slice(0, 32);
    const body = {
      consent: true,
      date_of_birth: '1990-01-01',
      email: `${username}@example.com`,
      password: 'correct-horse-battery',
      username,
    };
    const res = await http(app).post('/v1/auth/register').set('X-Forwarded-For', ip).send(body);
    expect(res.status).toBe(200);
    return { token: res.body.token, userId: res.body.user_id, ...body };
  }
  const login = (ip: string, email: string, password: string) =>
    http(app).post('/v1/auth/login').set('X-Forwarded-For', ip).send({ email, password });

  it('five wrong passwords from one address block that address only', async () => {
    const alice = await registerFrom('192.0.2.10');
    const mallory = '203.0.113.5';
    for (let i = 0; i < 5; i++) {
      expect((await login(mallory, alice.email, 'wrong-password')).status).toBe(400);
    }
    // Mallory's address is refused for Alice's account, even with the right password…
    const blocked = await login(mallory, alice.email, alice.password);
    expect(blocked.status).toBe(429);
    expect(blocked.body).toMatchObject({ code: 'RATE_LIMITED', global: false });
    expect(blocked.body.retry_after).toBeGreaterThan(800);
    // …and Alice logs in at once.
    const own = await login('192.0.2.10', alice.email, alice.password);
    expect(own.status).toBe(200);
    expect(own.body.token).toEqual(expect.any(String));
  });

  it('many addresses together only space the account’s logins out, never for the owner’s address', async () => {
    const bob = await registerFrom('192.0.2.20');
    // 20 wrong passwords, each from an address of its own (under every per-address limit).
    for (let i = 0; i < 20; i++) {
      expect((await login(`198.51.100.${i + 1}`, bob.email, `guess-${i}`)).status).toBe(400);
    }
    // Under attack, attempts from new addresses are spaced out: one per 2 s for the account.
    const first = await login('198.51.100.101', bob.email, 'guess-x');
    expect(first.status).toBe(400);
    const spaced = await login('198.51.100.102', bob.email, 'guess-y');
    expect(spaced.status).toBe(429);
    expect(spaced.body.retry_after).toBeLessThanOrEqual(2);
    // Bob, from the address he registered from, is not slowed at all…
    expect((await login('192.0.2.20', bob.email, bob.password)).status).toBe(200);
    // …and from a new one, after the short wait, his password is accepted (the new address then
    // asks for the e-mail authorization every new address of an account without MFA gets).
    await new Promise((r) => setTimeout(r, 2_100));
    const elsewhere = await login('198.51.100.200', bob.email, bob.password);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.code).toBe('IP_AUTHORIZATION_REQUIRED');
  });

  it('limits password-reset mails per target mailbox, whoever asks', async () => {
    const carol = await registerFrom('192.0.2.30');
    const ask = (ip: string, email: string) =>
      http(app).post('/v1/auth/forgot').set('X-Forwarded-For', ip).send({ email });
    for (let i = 0; i < 5; i++)
      expect((await ask(`203.0.113.${40 + i}`, carol.email)).status).toBe(204);
    const flood = await ask('203.0.113.99', carol.email.toUpperCase());
    expect(flood.status).toBe(429);
    expect(flood.body).toMatchObject({ code: 'RATE_LIMITED', global: false });
    const sent = mailbox(app)
      .messages()
      .filter((m) => m.to === carol.email && m.template === 'reset');
    expect(sent).toHaveLength(5);
    // The same holds for an address with no account: a 429 tells nothing about existence.
    const ghost = `${unique('ghost')}@example.com`;
    for (let i = 0; i < 5; i++) expect((await ask(`203.0.113.${50 + i}`, ghost)).status).toBe(204);
    expect((await ask('203.0.113.98', ghost)).status).toBe(429);
    // Other mailboxes are unaffected.
    expect((await ask('203.0.113.99', `${unique('other')}@example.com`)).status).toBe(204);
  });
});
