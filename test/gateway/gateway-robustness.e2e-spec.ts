import { randomBytes } from 'node:crypto';
import type { ParleyApp } from '../../src/app.setup';
import { serverPort } from '../helpers/ports';
import { GatewayServer } from '../../src/modules/gateway/gateway.server';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { GatewayClient } from '../helpers/gateway-client';
import { createGuild } from '../helpers/guild-factories';

/**
 * Abuse of the gateway: malformed and oversized frames, floods, thousands of connections opened
 * and dropped — no crash, no 5xx on the REST side meanwhile, and nothing left behind (the server's
 * connection and session tables and the routing indexes return to empty).
 */
describe('gateway robustness', () => {
  let app: ParleyApp;
  let url: string;
  let user: TestUser;

  beforeAll(async () => {
    const port = await serverPort();
    app = await createTestApp({ env: { GATEWAY_URL: `ws://127.0.0.1:${port}/gateway` } });
    await app.listen(port, '127.0.0.1');
    url = `ws://127.0.0.1:${port}/gateway`;
    user = await registerUser(app);
    await createGuild(app, user.token);
  });
  afterAll(() => app.close());

  const stats = () => app.get(GatewayServer).stats();
  const settle = async (check: () => boolean) => {
    const start = Date.now();
    while (!check() && Date.now() - start < 10_000) await new Promise((r) => setTimeout(r, 50));
  };

  const abuse: Array<(c: GatewayClient) => void> = [
    (c) => c.send(randomBytes(64).toString('latin1')),
    (c) => c.ws.send(randomBytes(512), { binary: true }),
    (c) => c.send(JSON.stringify({ op: 1, d: 'x'.repeat(5_000) })),
    (c) => c.send('{"op":2,"d":{"token":{"$gt":""}}}'),
    (c) => c.send('{"op":2,"d":null}'),
    (c) => c.send('{"op":6,"d":{"token":1,"session_id":[],"seq":"x"}}'),
    (c) => c.send('[1,2,3]'),
    (c) => c.send('null'),
    (c) => c.send('{"op":2,"d":{"token":"a","intents":-1,"shard":[0,0]}}'),
    (c) => c.send(`{"op":2,"d":{"token":"${'a'.repeat(3_000)}"}}`),
    (c) => c.send(`{"op":42,"d":${'['.repeat(1_000)}${']'.repeat(1_000)}}`),
    (c) => {
      for (let i = 0; i < 200; i++) c.send('{"op":1,"d":null}');
    },
    (c) => c.ws.terminate(),
  ];

  it('survives malformed frames, floods and 2,000 connect/disconnects without 5xx or leftovers', async () => {
    const rest: number[] = [];
    let running = true;
    const restLoad = (async () => {
      while (running) {
        const [me, ready] = await Promise.all([
          http(app).get('/v1/users/@me').set('Authorization', user.token),
          http(app).get('/v1/health/ready'),
        ]);
        rest.push(me.status, ready.status);
      }
    })();
    const closes = new Map<number, number>();
    for (let round = 0; round < 20; round++) {
      await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const c = await GatewayClient.connect(url, { heartbeat: false });
          await c.next((f) => f.op === 10);
          abuse[(round * 100 + i) % abuse.length](c);
          const closed = await c.closedWithin(3_000).catch(() => ({ code: -1 }));
          if (closed.code === -1) c.ws.terminate();
          closes.set(closed.code, (closes.get(closed.code) ?? 0) + 1);
        }),
      );
    }
    running = false;
    await restLoad;

    expect(rest.length).toBeGreaterThan(0);
    expect(rest.filter((s) => s >= 500)).toEqual([]);
    expect(rest.every((s) => s === 200)).toBe(true);
    // Every abuse got one of Discord's codes (or the client cut it): nothing hung open.
    for (const code of closes.keys())
      expect([1006, 4001, 4002, 4004, 4008, 4010, 4013]).toContain(code);
    expect(closes.get(-1)).toBeUndefined();
    await settle(() => stats().connections === 0);
    expect(stats()).toEqual({
      connections: 0,
      sessions: 0,
      addresses: 0,
      users: 0,
      routing: { guilds: 0, users: 0, starting: 0 },
    });
  });

  it('keeps a dropped session for resume, forgets one closed with 1000, and serves REST throughout', async () => {
    const clients = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const c = await GatewayClient.connect(url);
        await c.next((f) => f.op === 10);
        c.identify(user.token);
        await c.dispatch('GUILD_CREATE');
        return c;
      }),
    );
    expect(stats()).toMatchObject({ connections: 50, sessions: 50 });
    for (const c of clients.slice(0, 25)) c.ws.terminate();
    for (const c of clients.slice(25)) c.close(1000);
    await Promise.all(clients.map((c) => c.closed));
    await settle(() => stats().connections === 0 && stats().sessions === 25);
    // The 25 cut ones can resume; the 25 closed normally are gone with their index entries.
    expect(stats()).toEqual({
      connections: 0,
      sessions: 25,
      addresses: 0,
      users: 1,
      routing: { guilds: 1, users: 1, starting: 0 },
    });
    const me = await http(app).get('/v1/users/@me').set('Authorization', user.token);
    expect(me.status).toBe(200);
  });
});
