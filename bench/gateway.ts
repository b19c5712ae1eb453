/**
 * The gateway bench (`npm run bench:gateway`): Parley's real-time gateway in a production process
 * (`node dist/src/main.js`, NODE_ENV=production) against a bare `ws` server (dist/bench/bare-ws.js)
 * on the same runtime, in the same run. Rows (issue 21's targets):
 *
 * - idle identified connections: server RSS per connection with 5,000 and 10,000 connections
 *   (target ≤ 12 KB), and with 5,000 on `compress=zlib-stream` (≤ 64 KB);
 * - fan-out: one message to N connections, deliveries per second, vs the bare `ws` ceiling
 *   (target ≥ 50 % with 1 KB frames);
 * - end to end: webhook POST → MESSAGE_CREATE at one client, p50/p99, 20 posts/s with 1,000
 *   clients in the guild: one instance (target p99 ≤ 100 ms) and two instances through Redis
 *   (≤ 250 ms; needs BENCH_REDIS_URL);
 * - REST with the gateway idle: `GET /v1/users/@me` req/s with 1,000 idle connections vs none
 *   (target: ≤ 5 % loss);
 * - bots' everyday operations (issue 28): TYPING_START fan-out to 1,000 connections vs the bare
 *   `ws` ceiling with frames of its size (≥ 50 %); reaction add → MESSAGE_REACTION_ADD, p50/p99,
 *   20 reactions/s with 1,000 clients (p99 ≤ 50 ms); op 8 → every GUILD_MEMBERS_CHUNK of a
 *   10,000-member guild (≤ 1 s).
 *
 * Knobs: BENCH_PG (a PostgreSQL server URL; a scratch database is made and dropped) or
 * BENCH_DATABASE_URL; BENCH_REDIS_URL; BENCH_RUNTIMES=both (Node 20 and 24, as bench/run.ts);
 * BENCH_GATEWAY_CONNECTIONS=5000,10000; BENCH_GATEWAY_ROWS (some of
 * idle,fanout,latency,rest,redis,typing,reaction,chunks; default all); BENCH_APP_DIR (another build of the app to measure, e.g.
 * the commit before a change: a checkout with its dist and node_modules) and BENCH_APP_FLAGS (the
 * Node options the app starts with; default src/node-flags.ts). Output on stdout and in
 * bench/out/gateway-latest.md.
 */
import autocannon from 'autocannon';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { statusBytes } from './proc';
import {
  appDir,
  linkModules,
  nodeModulesFor,
  ROOT,
  selectRuntimes,
  type Runtime,
} from './runtimes';
import { scratchDatabase } from './scratch-database';
import { APP_SCRIPT, ServerProcess } from './servers';
import { Conn, fixtures, openMany, sleep, waitUntil } from './gateway-clients';
import { interactionLatency } from './gateway-interactions';
import { MEMBERS_SEEDED, memberChunks, reactionLatency, seedMembers } from './gateway-bots';

const SECRET_KEY = 'b'.repeat(64);
const say = (line: string) => process.stdout.write(`${line}\n`);

const rss = (server: ServerProcess) => statusBytes(server.pid, 'VmRSS') ?? 0;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** RSS once the server has settled (V8's memory reducer gives back garbage after ~10 s idle). */
async function quietRss(server: ServerProcess): Promise<number> {
  await sleep(12_000);
  return rss(server);
}

async function perConnection(
  server: ServerProcess,
  url: string,
  token: string | null,
  n: number,
): Promise<number> {
  const before = await quietRss(server);
  const conns = await openMany(url, token, n);
  const after = await quietRss(server);
  for (const c of conns) c.close();
  await sleep(2_000);
  return (after - before) / n;
}

const FRAME_PAD = 'x'.repeat(900); // with the message's other fields, ≈ 1 KB frames

async function fanOut(
  n: number,
  count: number,
  url: string,
  token: string | null,
  send: () => Promise<void>,
  counted: (c: Conn) => number = (c) => c.messages,
): Promise<number> {
  const conns = await openMany(url, token, n);
  await sleep(1_000);
  const total = () => conns.reduce((s, c) => s + counted(c), 0);
  const t0 = performance.now();
  await send();
  const ok = await waitUntil(() => total() >= n * count, 60_000);
  const seconds = (performance.now() - t0) / 1000;
  for (const c of conns) c.close();
  await sleep(1_000);
  return ok ? (n * count) / seconds : NaN;
}

async function latency(
  postBase: string,
  hookUrl: string,
  wsUrl: string,
  token: string,
  clients: number,
): Promise<{ p50: number; p99: number; received: number; sent: number }> {
  const conns = await openMany(wsUrl, token, clients);
  const sentAt = new Map<number, number>();
  const latencies: number[] = [];
  conns[0].onText = (text) => {
    const m = /"content":"lat (\d+) /.exec(text);
    if (!m) return;
    const t = sentAt.get(Number(m[1]));
    if (t !== undefined) latencies.push(performance.now() - t);
  };
  await sleep(1_000);
  const posts: Array<Promise<unknown>> = [];
  const rate = 20;
  const seconds = 10;
  const t0 = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const wait = t0 + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    sentAt.set(i, performance.now());
    posts.push(
      fetch(`${postBase}${hookUrl}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: `lat ${i} ${FRAME_PAD}` }),
      }).then((r) => r.arrayBuffer()),
    );
  }
  await Promise.all(posts);
  await waitUntil(() => latencies.length >= rate * seconds, 10_000);
  for (const c of conns) c.close();
  await sleep(1_000);
  latencies.sort((a, b) => a - b);
  const q = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
  return { p50: q(0.5), p99: q(0.99), received: latencies.length, sent: rate * seconds };
}

async function meRate(base: string, token: string): Promise<number> {
  const result = await autocannon({
    url: `${base}/v1/users/@me`,
    connections: 50,
    duration: 10,
    headers: { authorization: token },
  });
  return result.requests.average;
}

async function benchRuntime(
  rt: Runtime,
  cwd: string,
  dbUrl: string,
  work: string,
): Promise<string[]> {
  const rows: string[] = [];
  const logFile = (name: string) => join(work, `${name}.log`);
  const parleyEnv = (name: string, extra: Record<string, string> = {}) => {
    const dataDir = join(work, `data-${name}`);
    mkdirSync(dataDir, { recursive: true });
    return {
      NODE_ENV: 'production',
      RATE_LIMITS: 'off',
      DATA_DIR: dataDir,
      DATABASE_URL: dbUrl,
      SECRET_KEY,
      SHUTDOWN_GRACE_MS: '0',
      GATEWAY_MAX_CONNECTIONS: '0',
      // Every bench client is one user on one address.
      GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '1000000',
      GATEWAY_MAX_SESSIONS_PER_USER: '10000',
      // The interaction rows' HTTP endpoint is on loopback.
      OUTBOUND_ALLOW_PRIVATE: 'true',
      ...extra,
    };
  };
  // The app from BENCH_APP_DIR when given (another build: the commit before a change), the
  // baseline from this one.
  const start = (name: string, script: string, env: Record<string, string>, readyPath: string) =>
    ServerProcess.start({
      name,
      runtime: rt,
      cwd: script === APP_SCRIPT ? (process.env.BENCH_APP_DIR ?? cwd) : cwd,
      script,
      env,
      logFile: logFile(name),
      readyPath,
    });

  const parley = await start('parley', APP_SCRIPT, parleyEnv('parley'), '/v1/health/ready');
  const bare = await start('bare-ws', 'dist/bench/bare-ws.js', { NODE_ENV: 'production' }, '/ping');
  const ws = (s: ServerProcess, query = 'v=10&encoding=json') =>
    `${s.url.replace('http', 'ws')}/gateway?${query}`;
  try {
    const fx = await fixtures(parley.url);
    const counts = (process.env.BENCH_GATEWAY_CONNECTIONS ?? '5000,10000').split(',').map(Number);
    const rowsWanted = (
      process.env.BENCH_GATEWAY_ROWS ??
      'idle,fanout,latency,rest,redis,typing,reaction,chunks,interactions'
    ).split(',');
    const want = (row: string) => rowsWanted.includes(row);

    if (want('idle')) {
      for (const n of counts) {
        const p = await perConnection(parley, ws(parley), fx.token, n);
        const b = await perConnection(bare, ws(bare), null, n);
        rows.push(
          `| ${rt.label} | idle identified connections, RSS per connection, ${n.toLocaleString('en')} | ${kb(p)} | ${kb(b)} | ≤ 12 KB | ${p <= 12 * 1024 ? 'met' : 'missed'} |`,
        );
        say(rows[rows.length - 1]);
      }
      const z = await perConnection(
        parley,
        ws(parley, 'v=10&encoding=json&compress=zlib-stream'),
        fx.token,
        counts[0],
      );
      rows.push(
        `| ${rt.label} | idle identified connections, zlib-stream, RSS per connection, ${counts[0].toLocaleString('en')} | ${kb(z)} | – | ≤ 64 KB | ${z <= 64 * 1024 ? 'met' : 'missed'} |`,
      );
      say(rows[rows.length - 1]);
    }

    if (want('fanout')) {
      const fanN = 1_000;
      const fanCount = 50;
      const parleyFan = await fanOut(fanN, fanCount, ws(parley), fx.token, async () => {
        await Promise.all(
          Array.from({ length: fanCount }, (_, i) =>
            fetch(`${parley.url}${fx.hookUrl}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ content: `fan ${i} ${FRAME_PAD}` }),
            }).then((r) => r.arrayBuffer()),
          ),
        );
      });
      const bareFan = await fanOut(fanN, fanCount, ws(bare), null, async () => {
        await fetch(`${bare.url}/broadcast?count=${fanCount}&bytes=1024`, { method: 'POST' });
      });
      const share = parleyFan / bareFan;
      rows.push(
        `| ${rt.label} | fan-out, ${fanCount} messages (≈ 1 KB frames) to ${fanN.toLocaleString('en')} connections, deliveries/s | ${Math.round(parleyFan).toLocaleString('en')} (${(share * 100).toFixed(0)} % of bare) | ${Math.round(bareFan).toLocaleString('en')} | ≥ 50 % of bare | ${share >= 0.5 ? 'met' : 'missed'} |`,
      );
      say(rows[rows.length - 1]);
    }

    if (want('latency')) {
      const one = await latency(parley.url, fx.hookUrl, ws(parley), fx.token, 1_000);
      rows.push(
        `| ${rt.label} | webhook POST → MESSAGE_CREATE, 20 posts/s, 1,000 clients, one instance: p50 / p99 (${one.received}/${one.sent} received) | ${one.p50.toFixed(1)} / ${one.p99.toFixed(1)} ms | – | p99 ≤ 100 ms | ${one.p99 <= 100 ? 'met' : 'missed'} |`,
      );
      say(rows[rows.length - 1]);
    }

    if (want('rest')) {
      const idleBefore = await meRate(parley.url, fx.token);
      const idle = await openMany(ws(parley), fx.token, 1_000);
      await sleep(2_000);
      const idleWith = await meRate(parley.url, fx.token);
      for (const c of idle) c.close();
      const loss = 1 - idleWith / idleBefore;
      rows.push(
        `| ${rt.label} | GET /v1/users/@me req/s, no gateway connections → 1,000 idle ones | ${Math.round(idleBefore).toLocaleString('en')} → ${Math.round(idleWith).toLocaleString('en')} (${(loss * 100).toFixed(1)} % loss) | – | ≤ 5 % loss | ${loss <= 0.05 ? 'met' : 'missed'} |`,
      );
      say(rows[rows.length - 1]);
    }

    if (want('typing')) {
      const n = 1_000;
      const count = 50;
      const typingUrl = `${parley.url}/v1/channels/${fx.channelId}/typing`;
      const parleyFan = await fanOut(
        n,
        count,
        ws(parley),
        fx.token,
        async () => {
          for (let i = 0; i < count; i++) {
            await fetch(typingUrl, { method: 'POST', headers: { authorization: fx.token } });
          }
        },
        (c) => c.typing,
      );
      // The bare ceiling with frames of TYPING_START's size (its member object included).
      const bareFan = await fanOut(n, count, ws(bare), null, async () => {
        await fetch(`${bare.url}/broadcast?count=${count}&bytes=400`, { method: 'POST' });
      });
      const share = parleyFan / bareFan;
      rows.push(
        `| ${rt.label} | TYPING_START fan-out, ${count} typing posts to ${n.toLocaleString('en')} connections, deliveries/s | ${Math.round(parleyFan).toLocaleString('en')} (${(share * 100).toFixed(0)} % of bare) | ${Math.round(bareFan).toLocaleString('en')} | ≥ 50 % of bare | ${share >= 0.5 ? 'met' : 'missed'} |`,
      );
      say(rows[rows.length - 1]);
    }

    if (want('reaction')) {
      const r = await reactionLatency(parley.url, fx, ws(parley), 1_000);
      rows.push(
        `| ${rt.label} | reaction add → MESSAGE_REACTION_ADD, 20 reactions/s, 1,000 clients: p50 / p99 (${r.received}/${r.sent} received) | ${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} ms | – | p99 ≤ 50 ms | ${r.p99 <= 50 ? 'met' : 'missed'} |`,
      );
      say(rows[rows.length - 1]);
    }

    if (want('chunks')) {
      await seedMembers(dbUrl, fx.guildId, MEMBERS_SEEDED);
      const ms = await memberChunks(ws(parley), fx.token, fx.guildId);
      rows.push(
        `| ${rt.label} | op 8 → every GUILD_MEMBERS_CHUNK of a ${(MEMBERS_SEEDED + 1).toLocaleString('en')}-member guild (median of 5) | ${ms.toFixed(0)} ms | – | ≤ 1 s | ${ms <= 1000 ? 'met' : 'missed'} |`,
      );
      say(rows[rows.length - 1]);
    }

    if (want('interactions')) {
      const created = await interactionLatency(parley.url, fx, ws(parley), 20, 10, 'gateway');
      rows.push(
        `| ${rt.label} | POST /v1/interactions → INTERACTION_CREATE at the bot, 20/s, one instance: p50 / p99 (${created.received}/${created.sent} received) | ${created.p50.toFixed(1)} / ${created.p99.toFixed(1)} ms | – | p99 ≤ 50 ms | ${created.p99 <= 50 ? 'met' : 'missed'} |`,
      );
      say(rows[rows.length - 1]);
      const trip = await interactionLatency(parley.url, fx, ws(parley), 200, 5, 'answered');
      rows.push(
        `| ${rt.label} | invoke → the bot answers (type 4) → the member's MESSAGE_CREATE, 200 interactions/s, one instance: p50 / p99 (${trip.received}/${trip.sent} received) | ${trip.p50.toFixed(1)} / ${trip.p99.toFixed(1)} ms | – | p99 ≤ 100 ms | ${trip.p99 <= 100 ? 'met' : 'missed'} |`,
      );
      say(rows[rows.length - 1]);
      const signed = await interactionLatency(parley.url, fx, ws(parley), 20, 10, 'http');
      const added = signed.p50 - created.p50;
      rows.push(
        `| ${rt.label} | POST /v1/interactions → the signed POST at a loopback endpoint (discord-interactions' verifyKey), 20/s: p50 / p99 (${signed.received}/${signed.sent}); added over the gateway row at p50 | ${signed.p50.toFixed(1)} / ${signed.p99.toFixed(1)} ms (+${added.toFixed(1)} ms) | – | ≤ 2 ms added at p50 | ${added <= 2 ? 'met' : 'missed'} |`,
      );
      say(rows[rows.length - 1]);
    }

    const redis = process.env.BENCH_REDIS_URL;
    if (redis && want('redis')) {
      // Both instances on Redis, and nothing else on the database: an instance without Redis
      // could hold the relay, and events would reach A and B through PostgreSQL instead.
      await parley.stop();
      const a = await start(
        'parley-a',
        APP_SCRIPT,
        parleyEnv('a', { REDIS_URL: redis }),
        '/v1/health/ready',
      );
      const b = await start(
        'parley-b',
        APP_SCRIPT,
        parleyEnv('b', { REDIS_URL: redis }),
        '/v1/health/ready',
      );
      try {
        const two = await latency(a.url, fx.hookUrl, ws(b), fx.token, 1_000);
        rows.push(
          `| ${rt.label} | the same, posted on instance A, received on B through Redis: p50 / p99 (${two.received}/${two.sent} received) | ${two.p50.toFixed(1)} / ${two.p99.toFixed(1)} ms | – | p99 ≤ 250 ms | ${two.p99 <= 250 ? 'met' : 'missed'} |`,
        );
        say(rows[rows.length - 1]);
        if (want('interactions')) {
          const across = await interactionLatency(a.url, fx, ws(b), 20, 10, 'gateway');
          rows.push(
            `| ${rt.label} | POST /v1/interactions on A → INTERACTION_CREATE at the bot on B (Redis), 20/s: p50 / p99 (${across.received}/${across.sent} received) | ${across.p50.toFixed(1)} / ${across.p99.toFixed(1)} ms | – | p99 ≤ 100 ms | ${across.p99 <= 100 ? 'met' : 'missed'} |`,
          );
          say(rows[rows.length - 1]);
        }
      } finally {
        await a.stop();
        await b.stop();
      }
    }
  } finally {
    await parley.stop();
    await bare.stop();
  }
  return rows;
}

async function main(): Promise<void> {
  const runtimes = selectRuntimes();
  const work = mkdtempSync(join(tmpdir(), 'parley-gwbench-'));
  const db = await scratchDatabase('parley_gwbench');
  const rows: string[] = [];
  try {
    for (const [i, rt] of runtimes.entries()) {
      say(`${rt.label} (${rt.version}, ${rt.execPath})`);
      const cwd = appDir(join(work, `app-${i}`));
      linkModules(cwd, nodeModulesFor(rt));
      rows.push(...(await benchRuntime(rt, cwd, db.url, work)));
    }
  } finally {
    await db.drop().catch(() => undefined);
    if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  }
  const table = [
    '| runtime | row | Parley | bare `ws` | target | |',
    '|---|---|---:|---:|---|---|',
    ...rows,
  ].join('\n');
  mkdirSync(join(ROOT, 'bench', 'out'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'out', 'gateway-latest.md'), `${table}\n`);
  say(`\n${table}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
