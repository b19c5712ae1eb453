import type { ParleyApp } from '../src/app.setup';
import { Agent, request as httpRequest, type ClientRequest } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { createTestApp, RELAXED_LIMITS, TEST_SECRET_KEY } from './helpers/app';
import { registerUser } from './helpers/factories';
import { createGuild, createWebhook, type TestWebhook } from './helpers/guild-factories';
import { collect, describeFailure, send, type Reply } from './helpers/http-client';
import {
  ensureProductionBuild,
  LEVEL,
  ServerProcess,
  type LogLine,
} from './helpers/server-process';
import { TcpProxy } from './helpers/tcp-proxy';
import { serverPort } from './helpers/ports';

/**
 * Shutdown and start-up of the production process (DESIGN.md §2 "Shutdown"). These tests run
 * `node dist/src/main.js` as a separate process — signals, exit codes and the database-wait loop
 * live in main.ts, which the in-process test apps never execute. CI builds dist before the
 * tests; locally a missing or stale build is rebuilt first (ensureProductionBuild).
 */
describe('production process: graceful shutdown and start-up', () => {
  const dbUrl = process.env.PARLEY_TEST_DATABASE_URL!;
  let app: ParleyApp;
  let db: DataSource;
  const procs: ServerProcess[] = [];
  const proxies: TcpProxy[] = [];

  const baseEnv = (port: number): Record<string, string> => ({
    NODE_ENV: 'production',
    DATABASE_URL: dbUrl,
    DATABASE_POOL_SIZE: '4',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'parley-proc-')),
    SECRET_KEY: TEST_SECRET_KEY,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    RATE_LIMIT_OVERRIDES: RELAXED_LIMITS,
    LOG_LEVEL: 'info',
  });

  beforeAll(async () => {
    ensureProductionBuild();
    // Data is made through the in-process app's factories, on the same database.
    app = await createTestApp();
    db = app.get(DataSource);
  }, 240_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await Promise.all(proxies.map((p) => p.close()));
    await app?.close();
  });

  const errorLines = (p: ServerProcess) => p.lines.filter((l) => l.level >= LEVEL.error);
  const said = (re: RegExp) => (l: LogLine) => typeof l.msg === 'string' && re.test(l.msg);

  it('drains on SIGTERM under load: readiness 503 during the grace period, no request reset, every acknowledged message stored, exit 0', async () => {
    const owner = await registerUser(app);
    const guild = await createGuild(app, owner.token);
    const hook: TestWebhook = await createWebhook(app, owner.token, guild.channelId);
    const execPath = `/v1/webhooks/${hook.id}/${hook.token}?wait=true`;

    const port = await serverPort();
    const proc = ServerProcess.start(
      { ...baseEnv(port), SHUTDOWN_GRACE_MS: '1000', SHUTDOWN_TIMEOUT_MS: '20000' },
      port,
    );
    procs.push(proc);
    await proc.waitUntilReady(60_000);

    // 40 clients, each on its own keep-alive connection, post until the "load balancer" (the
    // readiness poller below) sees 503.
    const acked = new Map<string, string>(); // message id → content
    const failures: string[] = [];
    let lbStopped = false;
    const workers = Array.from({ length: 40 }, async (_, w) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      for (let i = 0; !lbStopped; i++) {
        const content = `client ${w} message ${i}`;
        try {
          const res = await send({
            port,
            method: 'POST',
            path: execPath,
            body: { content },
            agent,
          });
          if (res.status === 200 && res.json?.content === content) acked.set(res.json.id, content);
          else failures.push(`${content}: ${res.status} ${res.text.slice(0, 200)}`);
        } catch (err) {
          failures.push(`${content}: ${describeFailure(err)}`);
          break; // a reset already fails the test; don't hammer a dead server
        }
      }
      agent.destroy();
    });
    try {
      const warm = Date.now();
      while (acked.size < 120 && failures.length === 0 && Date.now() - warm < 30_000) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(failures).toEqual([]);
      expect(acked.size).toBeGreaterThanOrEqual(120);

      // Three requests that are still in flight when the server stops accepting: headers and half
      // the body now, the rest only after the listener closed.
      const slow = Array.from({ length: 3 }, (_, i) => {
        const payload = JSON.stringify({ content: `slow message ${i}` });
        let req!: ClientRequest;
        const reply = new Promise<Reply>((resolve, reject) => {
          req = httpRequest(
            {
              host: '127.0.0.1',
              port,
              method: 'POST',
              path: execPath,
              agent: new Agent({ keepAlive: true, maxSockets: 1 }),
              headers: {
                'Content-Type': 'application/json',
                'Content-Length': String(Buffer.byteLength(payload)),
              },
            },
            (res) => collect(res, resolve, reject),
          );
          req.on('error', reject);
        });
        // Awaited below; this keeps an early failure of the test from adding unhandled rejections.
        reply.catch(() => undefined);
        req.flushHeaders();
        req.write(payload.slice(0, 10));
        return { req, rest: payload.slice(10), reply, content: `slow message ${i}` };
      });
      await new Promise((r) => setTimeout(r, 200));

      proc.kill('SIGTERM');
      // The load balancer: polls readiness on fresh connections; on 503 it stops sending.
      let readiness: Reply | null = null;
      const pollStart = Date.now();
      try {
        while (!readiness && Date.now() - pollStart < 5_000) {
          const res = await send({ port, path: '/v1/health/ready', timeoutMs: 5_000 });
          if (res.status === 503) readiness = res;
          else await new Promise((r) => setTimeout(r, 25));
        }
      } finally {
        lbStopped = true;
      }
      expect(readiness?.status).toBe(503);
      expect(readiness?.json).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: 'The server is shutting down.',
        checks: { server: 'draining' },
      });
      // Served while draining: that connection is not kept alive.
      expect(readiness?.headers.connection).toBe('close');
      await Promise.all(workers);

      // Serving goes on during the grace period; after it the listener closes and new connections
      // are refused (the app's log lines are buffered until exit, so this is watched from outside)…
      const served: number[] = [];
      let refused: unknown = null;
      // A probe whose handshake completes as the listener closes sits in the kernel's accept
      // queue, which is reset rather than refused: that one probe may see ECONNRESET (a load
      // balancer has stopped sending by then). The next one is refused.
      const resetAtClose: unknown[] = [];
      const closeWatch = Date.now();
      while (!refused && Date.now() - closeWatch < 10_000) {
        try {
          served.push((await send({ port, path: '/v1/health/live', timeoutMs: 2_000 })).status);
          await new Promise((r) => setTimeout(r, 50));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ECONNRESET') resetAtClose.push(err);
          else refused = err;
        }
      }
      expect(refused).toMatchObject({ code: 'ECONNREFUSED' });
      expect(resetAtClose.length).toBeLessThanOrEqual(1);
      expect(served.length).toBeGreaterThan(0);
      expect(served.every((s) => s === 200)).toBe(true);
      expect(proc.alive).toBe(true);
      // …while the requests in flight still finish, and each closes its connection.
      for (const s of slow) s.req.end(s.rest);
      const slowReplies = await Promise.all(slow.map((s) => s.reply));
      slowReplies.forEach((res, i) => {
        expect(res.status).toBe(200);
        expect(res.json.content).toBe(slow[i].content);
        expect(res.headers.connection).toBe('close');
        acked.set(res.json.id, slow[i].content);
      });

      expect(await proc.waitForExit(30_000)).toEqual({ code: 0, signal: null });
      expect(failures).toEqual([]);

      // Every acknowledged message is stored.
      const ids = [...acked.keys()];
      const stored = await db.query<Array<{ id: string; content: string }>>(
        'SELECT id::text AS id, content FROM messages WHERE id = ANY($1::bigint[])',
        [ids],
      );
      expect(stored).toHaveLength(ids.length);
      for (const row of stored) expect(row.content).toBe(acked.get(row.id));

      // The sequence, in order, and no error line.
      const order = [
        /^SIGTERM: readiness answers 503; serving 1000 ms more/,
        /^stopped accepting connections/,
        /^all requests finished; closing the application/,
        /^stopped$/,
      ].map((re) => proc.lines.findIndex(said(re)));
      expect(order.every((i) => i >= 0)).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      expect(errorLines(proc)).toEqual([]);
    } finally {
      // Whatever failed above, the clients stop.
      lbStopped = true;
    }
  }, 120_000);

  it('waits for an unreachable PostgreSQL at boot, logging each attempt, and serves once it is there', async () => {
    const port = await serverPort();
    const dbPort = await serverPort(); // nothing listens there yet
    const target = new URL(dbUrl);
    const unreachable = new URL(dbUrl);
    unreachable.hostname = '127.0.0.1';
    unreachable.port = String(dbPort);
    const proc = ServerProcess.start(
      { ...baseEnv(port), DATABASE_URL: unreachable.toString(), SHUTDOWN_GRACE_MS: '0' },
      port,
    );
    procs.push(proc);

    const first = await proc.waitForLine(said(/^waiting for PostgreSQL/), 15_000);
    expect(first.level).toBe(LEVEL.warn);
    expect(first.msg).toBe(
      `waiting for PostgreSQL at 127.0.0.1:${dbPort} (attempt 1, next in 1 s): connect ECONNREFUSED 127.0.0.1:${dbPort}`,
    );
    await proc.waitForLine(
      said(/^waiting for PostgreSQL at .* \(attempt 2, next in 2 s\)/),
      15_000,
    );
    expect(proc.alive).toBe(true);
    // Credentials never reach the log.
    if (unreachable.password) {
      expect(JSON.stringify(proc.lines)).not.toContain(unreachable.password);
    }

    // PostgreSQL "comes up" on that port.
    const proxy = await TcpProxy.start(
      { host: target.hostname, port: Number(target.port || 5432) },
      dbPort,
    );
    proxies.push(proxy);
    await proc.waitUntilReady(30_000);
    expect(
      proc.lines.some(
        said(/^PostgreSQL at 127\.0\.0\.1:\d+ accepts connections \(attempt [3-9]\)$/),
      ),
    ).toBe(true);
    const me = await send({ port, path: '/v1/.well-known/service' });
    expect(me.status).toBe(200);

    proc.kill('SIGTERM');
    expect(await proc.waitForExit(30_000)).toEqual({ code: 0, signal: null });
    expect(errorLines(proc)).toEqual([]);
  }, 90_000);

  it('fails fast instead of waiting when NODE_ENV=test', async () => {
    const port = await serverPort();
    const dbPort = await serverPort();
    const unreachable = new URL(dbUrl);
    unreachable.hostname = '127.0.0.1';
    unreachable.port = String(dbPort);
    const proc = ServerProcess.start(
      { ...baseEnv(port), NODE_ENV: 'test', DATABASE_URL: unreachable.toString() },
      port,
    );
    procs.push(proc);
    const exit = await proc.waitForExit(30_000);
    expect(exit.code).toBe(1);
    expect(proc.lines.some(said(/^waiting for PostgreSQL/))).toBe(false);
  }, 60_000);
});
