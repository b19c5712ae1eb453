/**
 * `npm run bench`: load-tests Parley against a bare Express 5 route measured in the same run.
 *
 *   BENCH_DURATION      seconds per measured run (default 10; each is preceded by a 2 s warm-up)
 *   BENCH_CONNECTIONS   concurrent connections (default 50)
 *   BENCH_DATABASE_URL  PostgreSQL for the Parley app (default: the embedded database in a temp dir)
 *   BENCH_REDIS_URL     Redis for rate-limit storage (default: none)
 *   BENCH_ONLY          comma-separated substrings: run only matching targets (the baseline always runs)
 *
 * autocannon runs in this process but on its own worker thread, so the load generator and the
 * server under test each get an event loop (on a 2-core machine, roughly a core each).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import express from 'express';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createApp } from '../src/app.setup';
import { BASELINE, BenchContext, BenchRequest, BenchTarget, TARGETS } from './targets';

const ROOT = resolve(__dirname, '..', '..');
const DURATION = positiveInt('BENCH_DURATION', 10);
const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 50);
const WARMUP_SECONDS = 2;

interface Row {
  name: string;
  ok: boolean;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  bad: number;
  note?: string;
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
): Promise<{ url: string; app: NestExpressApplication; close(): Promise<void> }> {
  const app = await createApp({
    env: {
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'error',
      DATA_DIR: dataDir,
      DATABASE_URL: process.env.BENCH_DATABASE_URL,
      REDIS_URL: process.env.BENCH_REDIS_URL,
    },
  });
  await app.listen(0, '127.0.0.1');
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

async function measure(target: BenchTarget, req: BenchRequest, baseUrl: string): Promise<Row> {
  const { body, type } = encodeBody(req.body);
  const headers = { ...(type ? { 'content-type': type } : {}), ...req.headers };
  const url = baseUrl + req.path;
  const expect = target.expectStatus ?? 200;

  // One request first: a target that fails is reported as such, not as a fast error page.
  const probe = await fetch(url, { method: req.method, headers, body });
  await probe.arrayBuffer();
  if (probe.status !== expect) {
    return {
      name: target.name,
      ok: false,
      rps: 0,
      p50: 0,
      p99: 0,
      requests: 0,
      bad: 1,
      note: `probe answered ${probe.status}, expected ${expect}`,
    };
  }

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
    note: bad
      ? `${bad} responses not ${expect} (codes ${JSON.stringify(r.statusCodeStats)}, errors ${r.errors}, timeouts ${r.timeouts})`
      : undefined,
  };
}

function table(rows: Row[]): string {
  const base = rows.find((r) => r.name === BASELINE);
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const lines = [
    '| target | req/s (avg) | p50 ms | p99 ms | vs bare |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const ratio = base && base.rps > 0 && r.ok ? `${fmt((100 * r.rps) / base.rps, 1)} %` : '—';
    lines.push(
      r.ok
        ? `| ${r.name} | ${fmt(r.rps)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${ratio} |`
        : `| ${r.name} | invalid | — | — | — |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<number> {
  const only = (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const targets = TARGETS.filter(
    (t) => t.name === BASELINE || only.length === 0 || only.some((o) => t.name.includes(o)),
  );
  const embedded = !process.env.BENCH_DATABASE_URL;
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-'));

  const bare = await startBareExpress();
  const parley = await startParley(dataDir);
  const ctx = makeContext(bare.url, parley.url, parley.app);
  const rows: Row[] = [];
  try {
    for (const target of targets) {
      const { name: _n, server, expectStatus: _e, setup, ...request } = target;
      const req: BenchRequest = { ...request, ...(setup ? await setup(ctx) : {}) };
      process.stderr.write(
        `bench: ${target.name} (${WARMUP_SECONDS} s warm-up + ${DURATION} s)…\n`,
      );
      rows.push(await measure(target, req, server === 'bare' ? bare.url : parley.url));
    }
  } finally {
    await parley.close();
    await bare.close();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const header = [
    `Node ${process.version} on ${process.platform}/${process.arch}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'})`,
    `database: ${embedded ? 'embedded PGlite (child process)' : 'PostgreSQL (BENCH_DATABASE_URL)'}; ` +
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
