/**
 * Whether posting webhook messages leaves anything behind: the app in this process (the same
 * createApp as production, LOG_LEVEL=info to stdout), a webhook made through the API, then
 * `BENCH_MESSAGES` chatcompat messages (default 150,000) from 50 concurrent keep-alive
 * connections, printing the heap *after a forced full GC* and the RSS every fifth of the way.
 * The bench's memory row reads the RSS of a separately started server, which cannot be made to
 * collect: V8 grows its heap there before collecting, so that row can rise without a leak.
 *
 *   npm run build && BENCH_DATABASE_URL=postgres://… node --expose-gc dist/bench/heap-after-gc.js > /tmp/out
 */
import { mkdtempSync } from 'node:fs';
import { Agent, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.setup';
import { Pool } from 'pg';
import { makeContext } from './context';
import { CHATCOMPAT_BODY, newWebhook } from './fixtures';

const gc = (globalThis as { gc?: () => void }).gc;
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 150_000);
const CONNECTIONS = 50;

async function main(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  if (!databaseUrl || !gc) throw new Error('run with --expose-gc and BENCH_DATABASE_URL');
  const app = await createApp({
    env: {
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'info',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'parley-heap-')),
      SECRET_KEY: 'b'.repeat(64),
    },
  });
  await app.listen(0, '127.0.0.1');
  const { port } = (app.getHttpServer() as Server).address() as { port: number };
  const pool = new Pool({ connectionString: databaseUrl, max: 1 });
  const ctx = makeContext(`http://127.0.0.1:${port}`, databaseUrl, pool, CONNECTIONS);
  const hook = await newWebhook(ctx);
  const body = JSON.stringify(CHATCOMPAT_BODY);
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const post = () =>
    new Promise<void>((done, fail) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `/v1/webhooks/${hook.id}/${hook.token}/chatcompat`,
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200 ? done() : fail(new Error(`${res.statusCode}`)),
          );
        },
      );
      req.on('error', fail);
      req.end(body);
    });
  let sent = 0;
  const report = () => {
    gc();
    gc();
    const m = process.memoryUsage();
    const mb = (n: number) => (n / 1e6).toFixed(1);
    console.error(
      `${sent} messages: heap after GC ${mb(m.heapUsed)} MB, RSS ${mb(m.rss)} MB, external ${mb(m.external)} MB`,
    );
  };
  report();
  for (let step = 1; step <= 5; step++) {
    const until = Math.round((MESSAGES * step) / 5);
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (sent < until) {
          sent++;
          await post();
        }
      }),
    );
    report();
  }
  agent.destroy();
  await pool.end();
  await app.close();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
