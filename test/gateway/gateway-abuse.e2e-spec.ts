import Redis from 'ioredis';
import type { ParleyApp } from '../../src/app.setup';
import { serverPort } from '../helpers/ports';
import { createAdminKey } from '../helpers/admin';
import { createTestApp, http, isolatedDatabase } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { GatewayClient } from '../helpers/gateway-client';
import { createGuild } from '../helpers/guild-factories';
import { createApplication } from '../helpers/oauth2-factories';
import { TcpProxy } from '../helpers/tcp-proxy';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const GUILD_MEMBERS_INTENT = 1 << 1;
const GUILD_MEMBERS_FLAG = 1 << 15;

/** A second session of `user` (logging in again). */
async function login(app: ParleyApp, user: TestUser): Promise<string> {
  const res = await http(app)
    .post('/v1/auth/login')
    .send({ email: user.email, password: user.password });
  expect(res.status).toBe(200);
  return res.body.token as string;
}

/**
 * The gateway's abuse cases that are about behaviour rather than time (issue 27, item 8; the
 * timed ones, with /health/live, are gateway-abuse.serial-spec.ts): upgrade and failed-identify
 * limits per address, a logout landing during identify, revocations and bans made while the
 * notification connection is away, intents withdrawn by the owner, a resume with another token
 * of the same user, REDIS_KEY_PREFIX, and the log lines of connects and identifies.
 */
describe('gateway under abuse', () => {
  describe('per-address limits', () => {
    let app: ParleyApp;
    let url: string;
    let user: TestUser;
    beforeAll(async () => {
      const port = await serverPort();
      app = await createTestApp({
        env: {
          GATEWAY_URL: `ws://127.0.0.1:${port}/gateway`,
          GATEWAY_UPGRADES_PER_ADDRESS_PER_MINUTE: '6',
          GATEWAY_FAILED_IDENTIFIES_PER_ADDRESS_PER_MINUTE: '3',
        },
      });
      await app.listen(port, '127.0.0.1');
      url = `ws://127.0.0.1:${port}/gateway`;
      user = await registerUser(app);
    });
    afterAll(() => app.close());

    it('throttles failed identifies per address (429 at the upgrade), not the account they named', async () => {
      for (let i = 0; i < 3; i++) {
        const c = await GatewayClient.connect(url);
        await c.next((f) => f.op === 10);
        c.identify(`not-a-token-${i}`);
        expect((await c.closedWithin()).code).toBe(4004);
      }
      // Three failures from this address: its upgrades are refused for the rest of the minute,
      // whoever it claims to be — the account it named is not locked out elsewhere.
      await expect(GatewayClient.connect(url)).rejects.toThrow('upgrade refused: 429');
      const viaRest = await http(app).get('/v1/users/@me').set('Authorization', user.token);
      expect(viaRest.status).toBe(200);
    });
  });

  describe('upgrades per address', () => {
    it('refuses the upgrades past the per-minute budget with 429', async () => {
      const port = await serverPort();
      const app = await createTestApp({
        env: {
          GATEWAY_URL: `ws://127.0.0.1:${port}/gateway`,
          GATEWAY_UPGRADES_PER_ADDRESS_PER_MINUTE: '4',
        },
      });
      try {
        await app.listen(port, '127.0.0.1');
        const url = `ws://127.0.0.1:${port}/gateway`;
        const opened: GatewayClient[] = [];
        for (let i = 0; i < 4; i++) opened.push(await GatewayClient.connect(url));
        await expect(GatewayClient.connect(url)).rejects.toThrow('upgrade refused: 429');
        for (const c of opened) c.ws.terminate();
      } finally {
        await app.close();
      }
    });
  });

  describe('revocation', () => {
    let app: ParleyApp;
    let url: string;
    let owner: TestUser;
    beforeAll(async () => {
      const port = await serverPort();
      app = await createTestApp({ env: { GATEWAY_URL: `ws://127.0.0.1:${port}/gateway` } });
      await app.listen(port, '127.0.0.1');
      url = `ws://127.0.0.1:${port}/gateway`;
      owner = await registerUser(app);
      await createGuild(app, owner.token);
    });
    afterAll(() => app.close());

    it('a logout that lands while identify builds READY never leaves a live feed', async () => {
      for (let i = 0; i < 8; i++) {
        const token = await login(app, owner);
        const c = await GatewayClient.connect(url);
        await c.next((f) => f.op === 10);
        c.identify(token);
        // The logout races the identify: whichever comes first, the session ends with 4004.
        await sleep(i);
        const out = await http(app).post('/v1/auth/logout').set('Authorization', token);
        expect(out.status).toBe(204);
        expect((await c.closedWithin(5_000)).code).toBe(4004);
      }
    });

    it('a resume with another token of the same user binds the session to that token', async () => {
      const first = await login(app, owner);
      const second = await login(app, owner);
      const c = await GatewayClient.connect(url);
      await c.next((f) => f.op === 10);
      c.identify(first);
      const ready = await c.dispatch('READY');
      await c.dispatch('GUILD_CREATE');
      c.ws.terminate();
      await c.closed;
      const again = await GatewayClient.connect(url);
      await again.next((f) => f.op === 10);
      again.send({
        op: 6,
        d: { token: second, session_id: ready.d.session_id, seq: c.lastSeq },
      });
      await again.dispatch('RESUMED');
      // The token it was identified with goes: the session is the second token's now.
      await http(app).post('/v1/auth/logout').set('Authorization', first).expect(204);
      await expect(again.closedWithin(1_500)).rejects.toThrow('still open');
      await http(app).post('/v1/auth/logout').set('Authorization', second).expect(204);
      expect((await again.closedWithin(5_000)).code).toBe(4004);
    });

    it('closes a bot session with 4014 when its owner withdraws a privileged intent it uses', async () => {
      const application = await createApplication(app, owner);
      await http(app)
        .patch(`/v1/oauth2/applications/${application.id}`)
        .set('Authorization', owner.token)
        .send({ flags: GUILD_MEMBERS_FLAG })
        .expect(200);
      const c = await GatewayClient.connect(url);
      await c.next((f) => f.op === 10);
      c.identify(application.botToken, { intents: 1 | GUILD_MEMBERS_INTENT });
      await c.dispatch('READY');
      await http(app)
        .patch(`/v1/oauth2/applications/${application.id}`)
        .set('Authorization', owner.token)
        .send({ flags: 0 })
        .expect(200);
      expect((await c.closedWithin(5_000)).code).toBe(4014);
    });
  });

  describe('while the notification connection is away', () => {
    let db: { url: string; drop(): Promise<void> };
    let proxy: TcpProxy;
    let app: ParleyApp;
    let direct: ParleyApp;
    let url: string;
    let owner: TestUser;

    beforeAll(async () => {
      // A database of its own: the IP ban below must not reach the suites running beside it.
      db = await isolatedDatabase();
      const target = new URL(db.url);
      proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
      const port = await serverPort();
      app = await createTestApp({
        env: {
          DATABASE_URL: proxy.rewrite(db.url),
          GATEWAY_URL: `ws://127.0.0.1:${port}/gateway`,
          TRUST_PROXY: '1',
        },
      });
      await app.listen(port, '127.0.0.1');
      url = `ws://127.0.0.1:${port}/gateway`;
      // Another instance on the same database, not behind the proxy.
      direct = await createTestApp({ env: { DATABASE_URL: db.url } });
      owner = await registerUser(direct);
      await createGuild(direct, owner.token);
    });
    afterAll(async () => {
      await proxy?.restore();
      await app?.close();
      await direct?.close();
      await proxy?.close();
      await db?.drop();
    });

    /** A session from `address` (the app trusts one proxy hop: X-Forwarded-For names it). */
    async function session(token: string, address = '198.51.100.1'): Promise<GatewayClient> {
      const c = await GatewayClient.connect(url, { headers: { 'X-Forwarded-For': address } });
      await c.next((f) => f.op === 10);
      c.identify(token);
      await c.dispatch('READY');
      return c;
    }

    it('re-checks every live session once it is back: a logout and an IP ban made meanwhile apply', async () => {
      const token = await login(direct, owner);
      const loggedOut = await session(token);
      const banned = await session(await login(direct, owner), '203.0.113.7');
      const untouched = await session(await login(direct, owner));
      await proxy.outage();
      // Made on the other instance while this one hears nothing of it.
      await http(direct).post('/v1/auth/logout').set('Authorization', token).expect(204);
      const admin = await createAdminKey(direct, ['ban:ip:add']);
      await http(direct)
        .post('/v1/admin/bans/ip/add')
        .set('Authorization', admin.header)
        .send({ ip: '203.0.113.7' })
        .expect(204);
      await sleep(300);
      await proxy.restore();
      expect((await loggedOut.closedWithin(10_000)).code).toBe(4004);
      expect((await banned.closedWithin(10_000)).code).toBe(4004);
      await expect(untouched.closedWithin(1_000)).rejects.toThrow('still open');
    });
  });

  describe('REDIS_KEY_PREFIX and the log lines', () => {
    it('keeps every key and channel under the prefix, and logs connects and identifies without tokens', async () => {
      const db = await isolatedDatabase();
      const prefix = `abuse${process.pid}:`;
      const lines: string[] = [];
      const port = await serverPort();
      const app = await createTestApp({
        env: {
          DATABASE_URL: db.url,
          REDIS_URL: process.env.TEST_REDIS_URL,
          REDIS_KEY_PREFIX: prefix,
          GATEWAY_URL: `ws://127.0.0.1:${port}/gateway`,
          LOG_LEVEL: 'info',
        },
        logDestination: { write: (line: string) => void lines.push(line) },
      });
      const redis = new Redis(process.env.TEST_REDIS_URL!);
      try {
        await app.listen(port, '127.0.0.1');
        const owner = await registerUser(app);
        const g = await createGuild(app, owner.token);
        const c = await GatewayClient.connect(`ws://127.0.0.1:${port}/gateway`);
        await c.next((f) => f.op === 10);
        c.identify(owner.token);
        const ready = await c.dispatch('READY');
        const posted = await http(app)
          .post(`/v1/channels/${g.channelId}/messages`)
          .set('Authorization', owner.token)
          .send({ content: 'under a prefix' });
        await c.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === posted.body.id);
        expect(await redis.exists(`${prefix}parley:gw:session:${ready.d.session_id}`)).toBe(1);
        expect(await redis.exists(`${prefix}parley:events`)).toBe(1);
        expect(await redis.exists(`parley:gw:session:${ready.d.session_id}`)).toBe(0);
        const connect = lines.find((l) => l.includes('gateway connection opened'));
        const started = lines.find((l) => l.includes('gateway session started'));
        expect(connect).toContain('"ip":"127.0.0.1"');
        expect(started).toContain(`"user":"${owner.userId}"`);
        expect(lines.filter((l) => l.includes(owner.token))).toEqual([]);
        c.close(1000);
      } finally {
        redis.disconnect();
        await app.close();
        await db.drop();
      }
    });
  });
});
