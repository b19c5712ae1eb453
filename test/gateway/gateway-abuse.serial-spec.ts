import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import WebSocket from 'ws';
import type { ParleyApp } from '../../src/app.setup';
import { SnowflakeService } from '../../src/common/snowflake/snowflake.service';
import { createTestApp, RELAXED_LIMITS, TEST_SECRET_KEY } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { fixtureQuery } from '../helpers/fixtures';
import { GatewayClient } from '../helpers/gateway-client';
import { healthLatenciesDuring, p99, rssMiB } from '../helpers/health-poller';
import { serverPort } from '../helpers/ports';
import { ensureProductionBuild, ServerProcess } from '../helpers/server-process';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The gateway under abuse (issue 27, item 8), on the production process with small limits: the
 * abuses a probe with two instances found — silent connections holding every slot, one address
 * taking them all, upgrades in a loop, an account in 1,000 guilds identifying in a loop — each
 * bounded, while `GET /v1/health/live` answers within 100 ms (p99; polled every 10 ms on a
 * keep-alive connection from this process, the server being another).
 */
describe('production process: the gateway under abuse', () => {
  let app: ParleyApp;
  let proc: ServerProcess;
  let url: string;
  let whale: TestUser;

  beforeAll(async () => {
    ensureProductionBuild();
    app = await createTestApp();
    // An account in 1,000 guilds (a fixture: no route makes guilds in bulk).
    whale = await registerUser(app);
    const snowflakes = app.get(SnowflakeService);
    const ids = Array.from({ length: 1_000 }, () => snowflakes.next());
    const db = app.get(DataSource);
    await fixtureQuery(
      db,
      `INSERT INTO guilds (id, name, owner_id) SELECT g, 'whale', $2 FROM unnest($1::bigint[]) g`,
      [ids, whale.userId],
    );
    await fixtureQuery(
      db,
      `INSERT INTO guild_members (guild_id, user_id) SELECT g, $2 FROM unnest($1::bigint[]) g`,
      [ids, whale.userId],
    );
    const port = await serverPort();
    proc = ServerProcess.start(
      {
        NODE_ENV: 'production',
        DATABASE_URL: process.env.PARLEY_TEST_DATABASE_URL!,
        DATABASE_POOL_SIZE: '4',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'parley-proc-')),
        SECRET_KEY: TEST_SECRET_KEY,
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        RATE_LIMIT_OVERRIDES: RELAXED_LIMITS,
        GATEWAY_IDENTIFY_TIMEOUT_MS: '1000',
        GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '100',
        GATEWAY_UPGRADES_PER_ADDRESS_PER_MINUTE: '400',
        GATEWAY_IDENTIFIES_PER_USER_PER_MINUTE: '5',
        GATEWAY_MAX_SESSIONS_PER_USER: '3',
        LOG_LEVEL: 'warn',
      },
      port,
    );
    await proc.waitUntilReady(60_000);
    url = `ws://127.0.0.1:${port}/gateway?v=10&encoding=json`;
  }, 240_000);

  afterAll(async () => {
    await proc?.stop();
    await app?.close();
  });

  /** Runs `abuse` while polling health; the latencies. */
  const whilePolling = async (abuse: () => Promise<void>): Promise<number[]> =>
    (await healthLatenciesDuring(proc.port, abuse)).latencies;

  /** Opens a raw socket; resolves with it once open, or with the refusal's HTTP status. */
  const open = (): Promise<WebSocket | number> =>
    new Promise((resolve) => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      ws.once('open', () => resolve(ws));
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('error', () => resolve(0));
    });

  it('closes connections that never identify (4003), and refuses an address past its cap (429)', async () => {
    const sockets: WebSocket[] = [];
    const refused: number[] = [];
    const closes: number[] = [];
    const latencies = await whilePolling(async () => {
      // 300 silent clients from one address at once, heartbeating but never identifying.
      const opened = await Promise.all(Array.from({ length: 300 }, () => open()));
      for (const ws of opened) {
        if (typeof ws === 'number') {
          refused.push(ws);
          continue;
        }
        sockets.push(ws);
        ws.on('message', () => ws.send('{"op":1,"d":null}'));
        ws.on('close', (code) => closes.push(code));
      }
      // The deadline passes: each is closed with 4003 although it heartbeats.
      const deadline = Date.now() + 10_000;
      while (closes.length < sockets.length && Date.now() < deadline) await sleep(50);
    });
    expect(sockets.length).toBe(100);
    expect(refused).toEqual(Array(200).fill(429));
    expect(closes).toEqual(Array(100).fill(4003));
    expect(p99(latencies)).toBeLessThanOrEqual(100);
    // The slots are free again.
    const again = await open();
    expect(again).toBeInstanceOf(WebSocket);
    (again as WebSocket).terminate();
  }, 60_000);

  it('limits identifies per user and sessions per user: an account in 1,000 guilds identifying in a loop', async () => {
    const before = rssMiB(proc.child.pid!);
    const outcomes: string[] = [];
    const held: GatewayClient[] = [];
    const latencies = await whilePolling(async () => {
      for (let i = 0; i < 12; i++) {
        const c = await GatewayClient.connect(`ws://127.0.0.1:${proc.port}/gateway`);
        await c.next((f) => f.op === 10);
        c.identify(whale.token);
        const f = await c.next((x) => x.t === 'READY' || x.op === 9, 15_000);
        outcomes.push(f.op === 9 ? 'op9' : 'ready');
        // Dropped without closing: each keeps its session for resume (bounded).
        if (f.op === 9) c.ws.terminate();
        else held.push(c);
      }
    });
    // 5 identifies a minute, and at most 3 sessions at a time for this user.
    expect(outcomes.filter((o) => o === 'ready')).toHaveLength(3);
    expect(outcomes.filter((o) => o === 'op9')).toHaveLength(9);
    expect(p99(latencies)).toBeLessThanOrEqual(100);
    expect(rssMiB(proc.child.pid!) - before).toBeLessThan(200);
    for (const c of held) c.ws.terminate();
  }, 120_000);
});
