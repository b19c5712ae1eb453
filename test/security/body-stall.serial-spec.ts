import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ParleyApp } from '../../src/app.setup';
import { createTestApp, RELAXED_LIMITS, TEST_SECRET_KEY } from '../helpers/app';
import { registerUser } from '../helpers/factories';
import { createGuild, createWebhook, type TestWebhook } from '../helpers/guild-factories';
import { healthLatenciesDuring, p99, rssMiB } from '../helpers/health-poller';
import type { Reply } from '../helpers/http-client';
import { serverPort } from '../helpers/ports';
import { ensureProductionBuild, ServerProcess } from '../helpers/server-process';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const examples = require('@octokit/webhooks-examples') as Array<{
  name: string;
  examples: unknown[];
}>;

/**
 * Security finding 2 on the production process (`node dist/src/main.js`, as deployed): a request
 * with a pathological body — 23 MiB of eight million `{}` — must not stall anyone else. While it
 * is sent and handled, a client polls `GET /v1/health/live` every 10 ms on a keep-alive
 * connection: its p99 must stay ≤ 100 ms (the bar; the server is a separate process, so
 * the timer measures the server's event loop, not this test's). Without a valid token the body
 * is never read; with one, it is refused by the byte scan on a worker thread; and a 20 MiB real
 * push payload is rendered on that thread too.
 */
describe('production process: a pathological body stalls nobody', () => {
  let app: ParleyApp;
  let proc: ServerProcess;
  let hook: TestWebhook;

  beforeAll(async () => {
    ensureProductionBuild();
    app = await createTestApp();
    const owner = await registerUser(app);
    const guild = await createGuild(app, owner.token);
    hook = await createWebhook(app, owner.token, guild.channelId);
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
        LOG_LEVEL: 'warn',
      },
      port,
    );
    await proc.waitUntilReady(60_000);
  }, 240_000);

  afterAll(async () => {
    await proc?.stop();
    await app?.close();
  });

  /**
   * Sends `body` to `path` `times` times in a row while polling health; the POSTs' answers and
   * the health latencies (several rounds: enough samples for a p99 to mean something).
   */
  const whilePolling = async (
    path: string,
    body: Buffer,
    headers: Record<string, string>,
    times = 3,
  ): Promise<{ replies: Reply[]; latencies: number[] }> => {
    const { result: replies, latencies } = await healthLatenciesDuring(proc.port, async () => {
      const out: Reply[] = [];
      for (let i = 0; i < times; i++) out.push(await sendRaw(proc.port, path, body, headers));
      return out;
    });
    return { replies, latencies };
  };

  const EIGHT_MILLION_EMPTY_OBJECTS = Buffer.from(`[${'{},'.repeat(8_000_000 - 1)}{}]`);

  it('never reads it without a valid token: 404 at once, no memory spent', async () => {
    const before = rssMiB(proc.child.pid!);
    const { replies, latencies } = await whilePolling(
      `/v1/webhooks/${hook.id}/${'D'.repeat(64)}/repohost`,
      EIGHT_MILLION_EMPTY_OBJECTS,
      { 'X-GitHub-Event': 'push' },
    );
    for (const reply of replies) {
      expect(reply.status).toBe(404);
      expect(reply.json?.code).toBe('UNKNOWN_WEBHOOK');
    }
    expect(latencies.length).toBeGreaterThan(5);
    expect(p99(latencies)).toBeLessThanOrEqual(100);
    expect(rssMiB(proc.child.pid!) - before).toBeLessThan(64);
  }, 60_000);

  it('refuses it with a valid token off the event loop: 400 JSON_TOO_MANY_ITEMS, health p99 ≤ 100 ms', async () => {
    const { replies, latencies } = await whilePolling(
      `/v1/webhooks/${hook.id}/${hook.token}/repohost`,
      EIGHT_MILLION_EMPTY_OBJECTS,
      { 'X-GitHub-Event': 'push' },
    );
    for (const reply of replies) {
      expect(reply.status).toBe(400);
      expect(reply.json?.code).toBe('JSON_TOO_MANY_ITEMS');
    }
    expect(latencies.length).toBeGreaterThan(5);
    expect(p99(latencies)).toBeLessThanOrEqual(100);
  }, 60_000);

  it('renders a 20 MiB real push off the event loop: posted, health p99 ≤ 100 ms', async () => {
    const push = examples
      .find((e) => e.name === 'push')!
      .examples.find((e) => (e as { commits: unknown[] }).commits.length > 0) as {
      commits: unknown[];
    };
    const commit = JSON.stringify(push.commits[0]);
    // As many copies of a real commit as fill 20 MiB (GitHub caps deliveries at 25 MB).
    const copies = Math.ceil((20 * 1024 * 1024) / (commit.length + 1));
    const payload = Buffer.from(
      JSON.stringify({ ...push, commits: [] }).replace(
        '"commits":[]',
        `"commits":[${Array(copies).fill(commit).join(',')}]`,
      ),
    );
    const { replies, latencies } = await whilePolling(
      `/v1/webhooks/${hook.id}/${hook.token}/repohost?wait=true`,
      payload,
      { 'X-GitHub-Event': 'push' },
    );
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(reply.json?.embeds?.[0]?.title).toEqual(expect.any(String));
    }
    expect(latencies.length).toBeGreaterThan(5);
    expect(p99(latencies)).toBeLessThanOrEqual(100);
  }, 60_000);
});

/** A POST of a raw JSON body over a connection of its own. */
function sendRaw(
  port: number,
  path: string,
  body: Buffer,
  headers: Record<string, string>,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { request } = require('node:http') as typeof import('node:http');
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        agent: false,
        headers: {
          ...headers,
          'Content-Type': 'application/json',
          'Content-Length': String(body.length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    // The server may answer (and close) before the whole body is sent: that is the point.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    req.end(body);
  });
}
