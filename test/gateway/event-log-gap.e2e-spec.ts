import type { ParleyApp } from '../../src/app.setup';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { GatewayClient } from '../helpers/gateway-client';
import { createGuild, type TestGuild } from '../helpers/guild-factories';
import { serverPort } from '../helpers/ports';
import { TcpProxy } from '../helpers/tcp-proxy';

/**
 * When the event log (Redis) is away, events are lost — the writes they follow are committed. A
 * connected session would then miss them silently; instead every session is ended with op 9 (not
 * resumable), and the client that identifies again gets the current state.
 */
describe('gateway: events lost while the event log is away', () => {
  let proxy: TcpProxy;
  let app: ParleyApp;
  let url: string;
  let owner: TestUser;
  let g: TestGuild;
  const open: GatewayClient[] = [];

  beforeAll(async () => {
    const redis = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    proxy = await TcpProxy.start({ host: redis.hostname, port: Number(redis.port || 6379) });
    const port = await serverPort();
    app = await createTestApp({
      env: {
        REDIS_URL: proxy.rewrite(redis.toString()),
        GATEWAY_URL: `ws://127.0.0.1:${port}/gateway`,
      },
    });
    await app.listen(port, '127.0.0.1');
    url = `ws://127.0.0.1:${port}/gateway`;
    owner = await registerUser(app);
    g = await createGuild(app, owner.token);
  });
  afterAll(async () => {
    for (const c of open) c.ws.terminate();
    await app?.close();
    await proxy?.close();
  });

  const post = (content: string) =>
    http(app)
      .post(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', owner.token)
      .send({ content });

  it('ends every session with op 9 and lets the client identify again', async () => {
    const client = await GatewayClient.connect(url);
    open.push(client);
    await client.next((f) => f.op === 10);
    client.identify(owner.token);
    await client.dispatch('READY');
    await client.dispatch('GUILD_CREATE');

    await proxy.outage();
    // Committed, but its MESSAGE_CREATE cannot reach the log.
    const lost = await post('while the log is away');
    expect(lost.status).toBe(201);
    const invalid = await client.next((f) => f.op === 9, 5_000);
    expect(invalid).toEqual({ op: 9, d: false, s: null, t: null });

    await proxy.restore();
    // The same connection identifies again: a new session with the current state.
    const from = client.frames.length;
    client.identify(owner.token);
    const ready = await client.next((f) => f.t === 'READY', 10_000, from);
    expect(ready.s).toBe(1);
    await client.next((f) => f.t === 'GUILD_CREATE', 5_000, from);
    // Redis is back: events flow again (the reader may first report its own outage: identify
    // again if told to).
    let sent = await post('after the log is back');
    expect(sent.status).toBe(201);
    const deadline = Date.now() + 15_000;
    for (;;) {
      const got = client.frames
        .slice(from)
        .find((f) => f.t === 'MESSAGE_CREATE' && f.d.id === sent.body.id);
      if (got) break;
      if (Date.now() > deadline)
        throw new Error(
          `no MESSAGE_CREATE; got ${JSON.stringify(client.frames.map((f) => f.t ?? f.op))}`,
        );
      if (client.frames.slice(from).some((f, i, all) => f.op === 9 && i === all.length - 1)) {
        client.identify(owner.token);
        await client.next((f) => f.t === 'READY', 10_000, client.frames.length);
        sent = await post('after the log is back, again');
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    // The message lost with the log never arrives, on this connection.
    expect(client.frames.some((f) => f.t === 'MESSAGE_CREATE' && f.d.id === lost.body.id)).toBe(
      false,
    );
  }, 60_000);
});
