/**
 * `npm run bench`: load-tests Parley against a bare Express 5 route measured in the same run.
 *
 *   BENCH_DURATION      seconds per measured run (default 10; each is preceded by a 2 s warm-up)
 *   BENCH_CONNECTIONS   concurrent connections (default 50)
 *   BENCH_DATABASE_URL  PostgreSQL for the Parley app (default: the embedded database in a temp dir)
 *   BENCH_REDIS_URL     Redis for rate-limit storage (default: none)
 *   BENCH_PG            a PostgreSQL server URL without database, e.g. postgres://postgres@127.0.0.1:5432:
 *                       the run creates a scratch database there, benches on it and drops it
 *                       (ignored when BENCH_DATABASE_URL is set)
 *   BENCH_SQL_LOG=1     print the SQL statements of one request of each Parley row
 *   BENCH_ONLY          comma-separated substrings of row names or groups (`accounts`, `webhooks`):
 *                       run only matching rows, plus the rows they are compared with (the bare
 *                       baseline always runs)
 *
 * autocannon runs in this process but on its own worker thread, so the load generator and the
 * server under test each get an event loop (on a 2-core machine, roughly a core each).
 * In-process rows (raw argon2id verify, raw INSERT) run on the main thread while the servers are
 * idle, with as many concurrent promises as autocannon has connections.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import express from 'express';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createApp } from '../src/app.setup';
import {
  BASELINE,
  BenchContext,
  BenchRequest,
  BenchTarget,
  HttpTarget,
  InProcessTarget,
  TARGETS,
} from './targets';

const ROOT = resolve(__dirname, '..', '..');
const DURATION = positiveInt('BENCH_DURATION', 10);
const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 50);
const WARMUP_SECONDS = 2;
/** Sequential requests sent before the load to count SQL statements per request. */
const SQL_PROBE = 10;

interface Row {
  name: string;
  ok: boolean;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  bad: number;
  /** SQL statements per request, counted over SQL_PROBE sequential requests (Parley rows). */
  sqlPerRequest?: number;
  reference?: string;
  note?: string;
}

const invalid = (target: BenchTarget, note: string): Row => ({
  name: target.name,
  ok: false,
  rps: 0,
  p50: 0,
  p99: 0,
  requests: 0,
  bad: 1,
  reference: target.reference,
  note,
});

/**
 * Counts (and with BENCH_SQL_LOG=1 prints) every statement any pg client of this process sends —
 * the app's TypeORM pool included — so a row can report SQL round trips per request. Bench-only
 * instrumentation: the app is not changed.
 */
let sqlStatements = 0;
let sqlLog = false;
function countSqlStatements(): void {
  const proto = Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    sqlStatements += 1;
    if (sqlLog) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text;
      process.stderr.write(`  sql: ${String(text).replace(/\s+/g, ' ').trim().slice(0, 120)}\n`);
    }
    return original.apply(this, args);
  };
}

/**
 * Waits until the Parley app is quiet: autocannon stops with requests still in flight, and the
 * server keeps working on them after their sockets close (so `res` 'close' is no signal). Quiet =
 * the app's pg pool has no busy client and no waiter for 500 ms in a row (a login still queued
 * for argon2 takes the pool right after, so a queue of them keeps it busy until it is empty).
 */
let appPool: { totalCount: number; idleCount: number; waitingCount: number } | undefined;
async function drained(timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let quiet = 0;
  while (appPool && quiet < 10 && Date.now() < until) {
    const busy = appPool.totalCount - appPool.idleCount + appPool.waitingCount;
    quiet = busy === 0 ? quiet + 1 : 0;
    await sleep(50);
  }
}

/** BENCH_PG: a scratch database created for this run and dropped after it. */
async function scratchDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `parley_bench_${process.pid}_${Date.now().toString(36)}`;
  const admin = async (sql: string) => {
    const client = new Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

function positiveInt(name: string, dflt: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer`);
  return n;
}

/** The framework ceiling: Express 5, JSON body parser on, one route answering a small object. */
async function startBareExpress(): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json());
  app.get('/ping', (_req, res) => {
    res.json({ ok: true, service: 'bench' });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((done) => server.once('listening', () => done()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((done) => server.close(() => done())) };
}

async function startParley(
  dataDir: string,
  databaseUrl: string | undefined,
): Promise<{ url: string; app: NestExpressApplication; close(): Promise<void> }> {
  const app = await createApp({
    env: {
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'error',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      REDIS_URL: process.env.BENCH_REDIS_URL,
    },
  });
  await app.listen(0, '127.0.0.1');
  appPool = (app.get(DataSource).driver as unknown as { master?: typeof appPool }).master;
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, app, close: () => app.close() };
}

function encodeBody(body: unknown): { body?: string; type?: string } {
  if (body === undefined) return {};
  if (typeof body === 'string') return { body };
  return { body: JSON.stringify(body), type: 'application/json' };
}

function makeContext(
  bareUrl: string,
  parleyUrl: string,
  app: NestExpressApplication,
): BenchContext {
  return {
    bareUrl,
    parleyUrl,
    app,
    connections: CONNECTIONS,
    async call<T>(
      method: string,
      path: string,
      init: { headers?: Record<string, string>; body?: unknown; expect?: number } = {},
    ): Promise<T> {
      const { body, type } = encodeBody(init.body);
      const res = await fetch(parleyUrl + path, {
        method,
        headers: { ...(type ? { 'content-type': type } : {}), ...init.headers },
        body,
      });
      const text = await res.text();
      const expect = init.expect ?? 200;
      if (res.status !== expect) {
        throw new Error(`${method} ${path}: expected ${expect}, got ${res.status} ${text}`);
      }
      return (text ? JSON.parse(text) : undefined) as T;
    },
  };
}

async function measure(target: HttpTarget, req: BenchRequest, baseUrl: string): Promise<Row> {
  const { body, type } = encodeBody(req.body);
  const headers = { ...(type ? { 'content-type': type } : {}), ...req.headers };
  const url = baseUrl + req.path;
  const expect = target.expectStatus ?? 200;

  const send = async () => {
    const res = await fetch(url, { method: req.method, headers, body });
    await res.arrayBuffer();
    return res.status;
  };
  // One request first: a target that fails is reported as such, not as a fast error page.
  await drained();
  const status = await send();
  if (status !== expect) return invalid(target, `probe answered ${status}, expected ${expect}`);
  // Then SQL_PROBE sequential requests on an idle server: exact statements per request (a
  // once-a-minute background write, like the session touch, falls on the first request).
  const sqlBefore = sqlStatements;
  sqlLog = process.env.BENCH_SQL_LOG === '1' && target.server === 'parley';
  for (let i = 0; i < SQL_PROBE; i++) {
    const s = await send();
    if (s !== expect) return invalid(target, `probe answered ${s}, expected ${expect}`);
    sqlLog = false;
  }
  await drained();
  const sqlPerRequest = (sqlStatements - sqlBefore) / SQL_PROBE;

  const options = {
    url,
    method: req.method,
    headers,
    body,
    connections: CONNECTIONS,
    pipelining: 1,
    workers: 1,
    timeout: 10,
  };
  await autocannon({ ...options, duration: WARMUP_SECONDS });
  const r = await autocannon({ ...options, duration: DURATION, title: target.name });
  await drained();
  const good = r.statusCodeStats[String(expect)]?.count ?? 0;
  const total = Object.values(r.statusCodeStats).reduce((n, s) => n + s.count, 0);
  const bad = total - good + r.errors + r.timeouts;
  return {
    name: target.name,
    ok: bad === 0,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: total,
    bad,
    sqlPerRequest: target.server === 'parley' ? sqlPerRequest : undefined,
    reference: target.reference,
    note: bad
      ? `${bad} responses not ${expect} (codes ${JSON.stringify(r.statusCodeStats)}, errors ${r.errors}, timeouts ${r.timeouts})`
      : undefined,
  };
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;

/**
 * `concurrency` promises each repeat `op` until the deadline. Only operations that finish before
 * it count, and the rate is divided by the nominal duration, as autocannon's is.
 */
async function loop(
  op: () => Promise<void>,
  concurrency: number,
  seconds: number,
): Promise<{ latencies: number[]; errors: number; firstError?: unknown }> {
  const deadline = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  let errors = 0;
  let firstError: unknown;
  const worker = async () => {
    while (performance.now() < deadline) {
      const start = performance.now();
      try {
        await op();
        const end = performance.now();
        if (end <= deadline) latencies.push(end - start);
      } catch (err) {
        errors += 1;
        firstError ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies, errors, firstError };
}

async function measureInProcess(target: InProcessTarget, ctx: BenchContext): Promise<Row> {
  await drained();
  const { op, close, note } = await target.setup(ctx);
  try {
    await op(); // the probe: a ceiling that fails is invalid, not fast
    const concurrency = target.concurrency ?? CONNECTIONS;
    await loop(op, concurrency, WARMUP_SECONDS);
    const r = await loop(op, concurrency, DURATION);
    const sorted = r.latencies.sort((a, b) => a - b);
    return {
      name: target.name,
      ok: r.errors === 0,
      rps: sorted.length / DURATION,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      requests: sorted.length,
      bad: r.errors,
      note: r.errors
        ? `${r.errors} operations failed, first: ${String(r.firstError)}`
        : `in-process, ${concurrency} concurrent promise(s); ${note ?? ''}`,
    };
  } finally {
    await close?.();
  }
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function table(rows: Row[]): string {
  const base = rows.find((r) => r.name === BASELINE);
  const pct = (r: Row, of: Row | undefined) =>
    of && of.ok && of.rps > 0 && r.ok ? `${fmt((100 * r.rps) / of.rps, 1)} %` : '—';
  const lines = [
    '| target | req/s (avg) | p50 ms | p99 ms | SQL/req | vs bare | vs ceiling |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const ceiling = r.reference ? rows.find((c) => c.name === r.reference) : undefined;
    const sql = r.sqlPerRequest === undefined ? '—' : fmt(r.sqlPerRequest, 2);
    lines.push(
      r.ok
        ? `| ${r.name} | ${fmt(r.rps)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${sql} | ` +
            `${pct(r, base)} | ${r.reference ? pct(r, ceiling) : '—'} |`
        : `| ${r.name} | invalid | — | — | — | — | — |`,
    );
  }
  const refs = rows.filter((r) => r.reference);
  if (refs.length) {
    lines.push(
      '',
      `SQL/req: statements sent per request, counted over ${SQL_PROBE} sequential requests.`,
      '"vs ceiling" compares with the row measured in the same run:',
    );
    for (const r of refs) lines.push(`- ${r.name} → ${r.reference}`);
  }
  return lines.join('\n');
}

/** BENCH_ONLY: matching rows (name or group), the rows they refer to, and the bare baseline. */
function selectTargets(only: string[]): BenchTarget[] {
  if (only.length === 0) return TARGETS;
  const picked = new Set<string>([BASELINE]);
  for (const t of TARGETS) {
    if (only.some((o) => t.name.includes(o) || (t.group ?? '').includes(o))) {
      picked.add(t.name);
      if (t.reference) picked.add(t.reference);
    }
  }
  return TARGETS.filter((t) => picked.has(t.name));
}

async function runTarget(target: BenchTarget, ctx: BenchContext, bareUrl: string): Promise<Row> {
  process.stderr.write(`bench: ${target.name} (${WARMUP_SECONDS} s warm-up + ${DURATION} s)…\n`);
  try {
    if (target.server === 'in-process') return await measureInProcess(target, ctx);
    const {
      name: _n,
      server,
      expectStatus: _e,
      setup,
      group: _g,
      reference: _r,
      ...request
    } = target;
    const req: BenchRequest = { ...request, ...(setup ? await setup(ctx) : {}) };
    return await measure(target, req, server === 'bare' ? bareUrl : ctx.parleyUrl);
  } catch (err) {
    // A broken setup (or a ceiling that cannot run) costs its row, not the whole run.
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`bench: ${target.name} failed: ${message}\n`);
    return invalid(target, `failed: ${message.split('\n')[0]}`);
  }
}

async function main(): Promise<number> {
  const only = (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const targets = selectTargets(only);
  countSqlStatements();
  const scratch =
    !process.env.BENCH_DATABASE_URL && process.env.BENCH_PG
      ? await scratchDatabase(process.env.BENCH_PG)
      : undefined;
  const databaseUrl = process.env.BENCH_DATABASE_URL || scratch?.url;
  const embedded = !databaseUrl;
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-'));

  const rows: Row[] = [];
  let serverVersion = '';
  try {
    const bare = await startBareExpress();
    const parley = await startParley(dataDir, databaseUrl);
    const ctx = makeContext(bare.url, parley.url, parley.app);
    try {
      const [v] = await parley.app
        .get(DataSource)
        .query<Array<{ server_version: string }>>('SHOW server_version');
      serverVersion = v?.server_version ?? '';
      for (const target of targets) rows.push(await runTarget(target, ctx, bare.url));
    } finally {
      await drained();
      await parley.close();
      await bare.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await scratch?.drop();
  }

  const database = embedded
    ? 'embedded PGlite (child process)'
    : `PostgreSQL ${serverVersion} (${scratch ? 'scratch database via BENCH_PG' : 'BENCH_DATABASE_URL'})`;
  const header = [
    `${new Date().toISOString()}: Node ${process.version} on ${process.platform}/${process.arch}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'})`,
    `database: ${database}; ` +
      `rate-limit storage: ${process.env.BENCH_REDIS_URL ? 'Redis' : 'memory'}; RATE_LIMITS=off`,
    `autocannon -c ${CONNECTIONS}, ${DURATION} s per target after a ${WARMUP_SECONDS} s warm-up, ` +
      'in-process on one worker thread',
  ];
  const notes = rows.filter((r) => r.note).map((r) => `- ${r.name}: ${r.note}`);
  const report = [...header, '', table(rows), ...(notes.length ? ['', ...notes] : [])].join('\n');
  console.log('\n' + report);

  const out = join(ROOT, 'bench', 'out');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'latest.md'), report + '\n');
  writeFileSync(
    join(out, 'latest.json'),
    JSON.stringify(
      { date: new Date().toISOString(), node: process.version, embedded, rows },
      null,
      2,
    ),
  );
  return rows.every((r) => r.ok) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
