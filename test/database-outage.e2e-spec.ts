import type { ParleyApp } from '../src/app.setup';
import { Agent } from 'node:http';
import { createTestApp } from './helpers/app';
import { registerUser } from './helpers/factories';
import { describeFailure, send } from './helpers/http-client';
import { LEVEL, type LogLine } from './helpers/server-process';
import { TcpProxy } from './helpers/tcp-proxy';

interface Sample {
  start: number;
  end: number;
  status?: number;
  body?: any;
  retryAfter?: string;
  error?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * PostgreSQL goes away under load (DESIGN.md §2): the app reaches the database through a TCP
 * proxy that drops every connection and refuses new ones for 2 s. Meanwhile requests answer
 * 503 SERVICE_UNAVAILABLE with Retry-After (never 500, never an anonymous 401 from the caller
 * guard), one warning is logged per outage and one info line when it ends, and service is back
 * within 5 s of the database.
 */
describe('PostgreSQL outage under load', () => {
  let proxy: TcpProxy;
  let app: ParleyApp;
  let port: number;
  const lines: LogLine[] = [];

  beforeAll(async () => {
    const url = new URL(process.env.PARLEY_TEST_DATABASE_URL!);
    proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
    app = await createTestApp({
      env: { DATABASE_URL: proxy.rewrite(url.toString()), LOG_LEVEL: 'info' },
      logDestination: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
    });
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as { port: number }).port;
  });

  afterAll(async () => {
    await proxy?.restore();
    await app?.close();
    await proxy?.close();
  });

  const said = (re: RegExp) => (l: LogLine) => typeof l.msg === 'string' && re.test(l.msg);

  it('answers 503 with Retry-After during each outage, logs it once, and serves again within 5 s', async () => {
    const user = await registerUser(app);
    const samples: Sample[] = [];
    let stop = false;
    // A modest load: 6 clients on keep-alive connections, one GET /users/@me each at a time.
    const clients = Array.from({ length: 6 }, async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      while (!stop) {
        const s: Sample = { start: Date.now(), end: 0 };
        try {
          const res = await send({
            port,
            path: '/v1/users/@me',
            headers: { Authorization: user.token },
            agent,
            timeoutMs: 10_000,
          });
          Object.assign(s, {
            status: res.status,
            body: res.json,
            retryAfter: res.headers['retry-after'],
          });
        } catch (err) {
          s.error = describeFailure(err);
        }
        s.end = Date.now();
        samples.push(s);
        await sleep(10);
      }
      agent.destroy();
    });

    const waitFor = async (what: string, ok: () => boolean, ms: number) => {
      const deadline = Date.now() + ms;
      while (!ok()) {
        if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
        await sleep(20);
      }
    };

    try {
      for (let outage = 1; outage <= 2; outage++) {
        // Healthy first.
        const healthyFrom = Date.now();
        await waitFor(
          'ten 200s before the outage',
          () => samples.filter((s) => s.start >= healthyFrom && s.status === 200).length >= 10,
          10_000,
        );

        await proxy.outage();
        const downAt = Date.now();
        await sleep(1_000);
        const ready = await send({ port, path: '/v1/health/ready' });
        expect(ready.status).toBe(503);
        expect(ready.json).toMatchObject({
          code: 'SERVICE_UNAVAILABLE',
          checks: { database: 'down' },
        });
        await sleep(1_000);
        await proxy.restore();
        const upAt = Date.now();

        // During the outage: once the app has noticed (first 503), nothing but 503s until the
        // database is back — a 200 in between could only come from a stale cache.
        const during = samples.filter((s) => s.start >= downAt && s.end <= upAt);
        const firstDown = during.find((s) => s.status === 503);
        expect(firstDown).toBeDefined();
        const afterNoticed = during.filter((s) => s.start >= firstDown!.end);
        expect(afterNoticed.length).toBeGreaterThanOrEqual(10);
        expect(afterNoticed.filter((s) => s.status !== 503)).toEqual([]);

        // Service is back within 5 s of the database.
        await waitFor(
          '200 after the database is back',
          () => samples.some((s) => s.start >= upAt && s.status === 200),
          5_000,
        );
        // …and the tracker says so (it probes every second).
        await waitFor(
          `the outage-ended line #${outage}`,
          () => lines.filter(said(/^PostgreSQL is reachable again/)).length === outage,
          5_000,
        );
      }
    } finally {
      stop = true;
      await Promise.all(clients);
    }

    // Every answer was a 200 or the 503 envelope with Retry-After; never a 500, a 401 or a reset.
    const unexpected = samples.filter((s) => s.error || (s.status !== 200 && s.status !== 503));
    expect(unexpected).toEqual([]);
    const unavailable = samples.filter((s) => s.status === 503);
    expect(unavailable.length).toBeGreaterThanOrEqual(20);
    for (const s of unavailable) {
      expect(s.body).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: 'The database is unavailable. Retry shortly.',
        retry_after: 2,
      });
      expect(s.retryAfter).toBe('2');
    }

    // Logs: one warning when each outage began, one info line when it ended, no error lines.
    const began = lines.filter(said(/^PostgreSQL is unavailable/));
    expect(began).toHaveLength(2);
    for (const l of began) {
      expect(l).toMatchObject({ level: LEVEL.warn, context: 'Database' });
      expect(l.msg).toMatch(/answer 503 SERVICE_UNAVAILABLE until it is back$/);
    }
    const ended = lines.filter(said(/^PostgreSQL is reachable again/));
    expect(ended.map((l) => l.level)).toEqual([LEVEL.info, LEVEL.info]);
    expect(lines.indexOf(began[0])).toBeLessThan(lines.indexOf(ended[0]));
    expect(lines.indexOf(ended[0])).toBeLessThan(lines.indexOf(began[1]));
    expect(lines.filter((l) => l.level >= LEVEL.error)).toEqual([]);
    // The 503s themselves are ordinary request lines, not warnings or errors.
    const requestLines = lines.filter((l) => l.msg === 'request' && l.status === 503);
    expect(requestLines.length).toBeGreaterThan(0);
    expect(requestLines.every((l) => l.level === LEVEL.info)).toBe(true);
  }, 90_000);
});
