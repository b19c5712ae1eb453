import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ParleyApp } from '../../src/app.setup';
import { createTestApp, RELAXED_LIMITS, TEST_SECRET_KEY } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { GatewayClient, type Frame } from '../helpers/gateway-client';
import { addMember, createGuild, type TestGuild } from '../helpers/guild-factories';
import { send } from '../helpers/http-client';
import { serverPort } from '../helpers/ports';
import { ensureProductionBuild, ServerProcess } from '../helpers/server-process';

/**
 * Several production processes (`node dist/src/main.js`) on one database and one Redis: events
 * committed on any instance reach sessions on every other, revocations close sessions everywhere,
 * and a session whose instance dies — or drains — resumes on another with no missing and no
 * duplicated sequence numbers.
 */
describe('gateway across instances (Redis)', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let g: TestGuild;
  const procs: ServerProcess[] = [];
  let a: ServerProcess;
  let b: ServerProcess;
  let c: ServerProcess;
  const clients: GatewayClient[] = [];

  const start = async (): Promise<ServerProcess> => {
    const port = await serverPort();
    const proc = ServerProcess.start(
      {
        NODE_ENV: 'production',
        DATABASE_URL: process.env.PARLEY_TEST_DATABASE_URL!,
        DATABASE_POOL_SIZE: '4',
        REDIS_URL: process.env.TEST_REDIS_URL!,
        DATA_DIR: mkdtempSync(join(tmpdir(), 'parley-gw-')),
        SECRET_KEY: TEST_SECRET_KEY,
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        RATE_LIMIT_OVERRIDES: RELAXED_LIMITS,
        SHUTDOWN_GRACE_MS: '2000',
        LOG_LEVEL: 'info',
      },
      port,
    );
    procs.push(proc);
    return proc;
  };
  const wsUrl = (p: ServerProcess) => `ws://127.0.0.1:${p.port}/gateway`;
  const connect = async (p: ServerProcess) => {
    const client = await GatewayClient.connect(wsUrl(p));
    clients.push(client);
    await client.next((f) => f.op === 10);
    return client;
  };
  const identify = async (p: ServerProcess, user: TestUser, guilds = 1) => {
    const client = await connect(p);
    client.identify(user.token);
    await client.dispatch('READY');
    if (guilds > 0) await client.dispatch('GUILD_CREATE');
    return client;
  };
  const post = async (p: ServerProcess, content: string): Promise<string> => {
    const res = await send({
      port: p.port,
      method: 'POST',
      path: `/v1/channels/${g.channelId}/messages`,
      headers: { Authorization: owner.token },
      body: { content },
    });
    if (res.status !== 201) throw new Error(`post: ${res.status} ${res.text}`);
    return res.json.id as string;
  };
  /** The dispatches a client saw, in order, with no gap and no repeat in `s` from READY on. */
  // Events numbered 1, 2, 3…; RESUMED repeats the number of the event before it.
  const expectConsecutive = (frames: Frame[]) => {
    const dispatches = frames.filter((f) => f.op === 0);
    const seqs = dispatches.filter((f) => f.t !== 'RESUMED').map((f) => f.s);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    dispatches.forEach((f, i) => {
      if (f.t === 'RESUMED') expect(f.s).toBe(dispatches[i - 1].s);
    });
  };

  beforeAll(async () => {
    ensureProductionBuild();
    app = await createTestApp();
    owner = await registerUser(app);
    g = await createGuild(app, owner.token);
    [a, b, c] = await Promise.all([start(), start(), start()]);
    await Promise.all([a, b, c].map((p) => p.waitUntilReady(60_000)));
  }, 240_000);

  afterEach(() => {
    for (const client of clients.splice(0)) client.ws.terminate();
  });

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await app?.close();
  });

  it('delivers what is committed on one instance to sessions on another', async () => {
    const onB = await identify(b, owner);
    const id = await post(a, 'posted on A');
    const event = await onB.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === id);
    expect(event.d).toMatchObject({ content: 'posted on A', guild_id: g.guildId });
  });

  it('closes a session on every instance with 4004 when its token is revoked on another', async () => {
    const user = await registerUser(app);
    const onB = await identify(b, user, 0);
    const logout = await send({
      port: a.port,
      method: 'POST',
      path: '/v1/auth/logout',
      headers: { Authorization: user.token },
    });
    expect(logout.status).toBe(204);
    expect((await onB.closedWithin(1_500)).code).toBe(4004);
  });

  it('resumes on another instance after SIGKILL: every message once, in order, consecutive seqs', async () => {
    const users = await Promise.all(Array.from({ length: 4 }, () => registerUser(app)));
    for (const u of users) await addMember(app, g.guildId, u.userId);
    const onA = await Promise.all(users.map((u) => identify(a, u)));

    const posted: string[] = [];
    let posting = true;
    const poster = (async () => {
      for (let i = 0; posting; i++) {
        posted.push(await post(b, `message ${i}`));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await new Promise((r) => setTimeout(r, 1_500));
    a.kill('SIGKILL');
    await Promise.all(onA.map((client) => client.closed));
    await new Promise((r) => setTimeout(r, 500));

    const resumed = await Promise.all(
      onA.map(async (old, i) => {
        const ready = old.dispatches('READY')[0];
        const last = old.lastSeq;
        const client = await connect(b);
        client.send({
          op: 6,
          d: { token: users[i].token, session_id: ready.d.session_id, seq: last },
        });
        await client.dispatch('RESUMED', 10_000);
        return client;
      }),
    );
    await new Promise((r) => setTimeout(r, 1_000));
    posting = false;
    await poster;
    const lastId = posted[posted.length - 1];
    await Promise.all(
      resumed.map((client) => client.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === lastId)),
    );

    onA.forEach((old, i) => {
      // Numbered dispatches only: presences (s: null) are outside the sequence, as typing is.
      const frames = [...old.frames, ...resumed[i].frames].filter(
        (f) => f.op === 0 && f.s !== null,
      );
      expectConsecutive(frames);
      const ids = frames.filter((f) => f.t === 'MESSAGE_CREATE').map((f) => f.d.id as string);
      // Every message posted after READY, once each, in order.
      const first = posted.indexOf(ids[0]);
      expect(first).toBeGreaterThanOrEqual(0);
      expect(ids).toEqual(posted.slice(first));
      expect(new Set(ids).size).toBe(ids.length);
    });
  }, 60_000);

  it('sends op 7 Reconnect on SIGTERM before closing; the client resumes elsewhere', async () => {
    const client = await identify(b, owner);
    const sessionId = client.dispatches('READY')[0].d.session_id as string;
    b.kill('SIGTERM');
    const reconnect = await client.next((f) => f.op === 7, 5_000);
    expect(reconnect).toEqual({ op: 7, d: null, s: null, t: null });
    const closed = await client.closedWithin(5_000);
    expect(closed.code).not.toBe(1000);
    const id = await post(c, 'while moving');
    // B, still draining, routes that message to the session it holds and writes a checkpoint
    // (every second): the checkpoint must stay at what the client was sent, or the resume on C
    // would start after a frame the client never received.
    await new Promise((r) => setTimeout(r, 1_500));
    const last = client.lastSeq!;
    const again = await connect(c);
    again.send({ op: 6, d: { token: owner.token, session_id: sessionId, seq: last } });
    await again.dispatch('RESUMED', 10_000);
    const replayed = again.dispatches();
    expect(replayed.map((f) => f.t)).toEqual(['MESSAGE_CREATE', 'RESUMED']);
    expect(replayed[0].d.id).toBe(id);
    expectConsecutive([...client.frames, ...again.frames]);
    expect(await b.waitForExit(30_000)).toEqual({ code: 0, signal: null });
  }, 60_000);
});
