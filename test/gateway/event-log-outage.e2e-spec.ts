import { DataSource } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { EventRelay } from '../../src/infra/events/event-relay';
import { createTestApp, http, isolatedDatabase } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { GatewayClient, type Frame } from '../helpers/gateway-client';
import { createGuild, type TestGuild } from '../helpers/guild-factories';
import { serverPort } from '../helpers/ports';
import { TcpProxy } from '../helpers/tcp-proxy';

/**
 * The event log loses nothing committed (ARCHITECTURE.md §7): while Redis is away, events are
 * read from PostgreSQL and live sessions keep receiving them — no session is ended. Only events
 * that are no longer kept end sessions (op 9), on the instance that needed them. Two instances
 * on a database of this suite's own (it moves the log's positions, which every instance on a
 * database sees) and one Redis behind a proxy that can vanish.
 */
describe('gateway: the event log through a Redis outage and a real loss', () => {
  let db: { url: string; drop(): Promise<void> };
  let proxy: TcpProxy;
  let leader: ParleyApp;
  let other: ParleyApp;
  let url: string;
  let owner: TestUser;
  let g: TestGuild;
  const open: GatewayClient[] = [];

  beforeAll(async () => {
    db = await isolatedDatabase();
    const redis = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    proxy = await TcpProxy.start({ host: redis.hostname, port: Number(redis.port || 6379) });
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: proxy.rewrite(redis.toString()),
      // Keys of their own: the other suites' gateway sessions and streams are not these.
      REDIS_KEY_PREFIX: `outage${process.pid}:`,
    };
    const a = await createTestApp({ env });
    const port = await serverPort();
    const b = await createTestApp({
      env: { ...env, GATEWAY_URL: `ws://127.0.0.1:${port}/gateway` },
    });
    await until(() => a.get(EventRelay).isLeader || b.get(EventRelay).isLeader);
    // Sessions on the instance that does not relay: everything they get crossed the transport.
    [leader, other] = a.get(EventRelay).isLeader ? [a, b] : [b, a];
    await other.listen(port, '127.0.0.1');
    url = `ws://127.0.0.1:${port}/gateway`;
    owner = await registerUser(leader);
    g = await createGuild(leader, owner.token);
  });
  afterAll(async () => {
    for (const c of open) c.ws.terminate();
    await Promise.all([leader?.close(), other?.close()]);
    await proxy?.close();
    await db?.drop();
  });

  const post = async (content: string): Promise<string> => {
    const res = await http(leader)
      .post(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', owner.token)
      .send({ content });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  async function session(): Promise<GatewayClient> {
    const client = await GatewayClient.connect(url);
    open.push(client);
    await client.next((f) => f.op === 10);
    client.identify(owner.token);
    await client.dispatch('READY');
    await client.dispatch('GUILD_CREATE');
    return client;
  }

  const messages = (frames: Frame[]) =>
    frames.filter((f) => f.t === 'MESSAGE_CREATE').map((f) => f.d.id as string);

  it('keeps sessions through a Redis outage: what is committed meanwhile arrives once, in order', async () => {
    const client = await session();
    const before = await post('before the outage');
    await client.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === before);

    await proxy.outage();
    const during = [await post('while Redis is away, 1'), await post('while Redis is away, 2')];
    await client.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === during[1], 10_000);
    await proxy.restore();
    const after = await post('after Redis is back');
    await client.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === after, 15_000);

    expect(messages(client.frames)).toEqual([before, ...during, after]);
    expect(client.frames.some((f) => f.op === 9)).toBe(false);
    const seqs = client.frames.filter((f) => f.op === 0).map((f) => f.s);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  }, 60_000);

  it('ends the sessions that needed events no longer kept (op 9); the client starts over', async () => {
    const client = await session();
    // Five positions numbered and already trimmed, as after a reader fell behind the retention.
    await leader
      .get(DataSource)
      .query('UPDATE realtime_event_log SET last_position = last_position + 5 WHERE id = 1');
    await post('after the loss');
    const invalid = await client.next((f) => f.op === 9, 10_000);
    expect(invalid).toEqual({ op: 9, d: false, s: null, t: null });
    const from = client.frames.length;
    client.identify(owner.token);
    await client.next((f) => f.t === 'READY', 10_000, from);
    const next = await post('after starting over');
    await client.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === next, 10_000, from);
  }, 60_000);
});

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const start = Date.now();
  while (!check() && Date.now() - start < ms) await new Promise((r) => setTimeout(r, 20));
}
