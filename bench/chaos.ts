/**
 * The chaos run (`npm run chaos`; `CHAOS_SHORT=1` for CI's short version): three production
 * processes (`node dist/src/main.js`) on their own PostgreSQL (the embedded binaries, on a fixed
 * loopback port so it can be restarted), their own `redis-server` and an S3 server (s3rver), under
 * steady load — webhook posts, logins, `@me`, admin reads, spread over the instances — with
 * gateway clients identified on every instance. Then the faults, one at a time, three rounds of:
 * the instance relaying events SIGKILLed right after it numbered a batch and before it sent it
 * (PARLEY_FAULT_RELAY_KILL_FILE), then started again; Redis stopped for 10 s while every webhook
 * post goes through one instance, then started again (empty: it keeps nothing). Then PostgreSQL
 * restarted. Everything listens on 127.0.0.1; the run is bounded (phases of CHAOS_PHASE_MS,
 * default 8 s; 3 s with CHAOS_SHORT=1).
 *
 * Report (stdout and bench/out/chaos-latest.md), with the pass conditions:
 * - acknowledged webhook messages missing from the database at the end (must be 0);
 * - 5xx answers other than 503 (must be 0; 503 is the answer while the database is away);
 * - rate limits shared by the instances after the chaos (a bucket's limit holds across them);
 * - a revoked session refused on every instance within 1 s;
 * - gateway clients, on every instance: every message acknowledged after they identified, once
 *   and in the order it was acknowledged, consecutive sequence numbers across resumes — or, if
 *   told to identify again (op 9), every message they missed is in the channel's history.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import WebSocket from 'ws';
import { freePort } from '../src/common/http/free-port';
import {
  startEmbeddedPostgres,
  type EmbeddedPostgresHandle,
} from '../src/database/embedded-postgres';
import { describeRuntime, ROOT } from './runtimes';
import { APP_SCRIPT, ServerProcess } from './servers';

const SHORT = process.env.CHAOS_SHORT === '1';
const PHASE_MS = Number(process.env.CHAOS_PHASE_MS ?? (SHORT ? 3_000 : 8_000));
const SECRET_KEY = 'c'.repeat(64);
/** How long Redis stays away in each round. */
const REDIS_DOWN_MS = Number(process.env.CHAOS_REDIS_DOWN_MS ?? 10_000);
const FAULT_ROUNDS = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (line: string) => process.stdout.write(`${line}\n`);

interface S3rverLike {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
// s3rver ships no types (test/types/s3rver.d.ts declares them for the tests only).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => S3rverLike;

/** A redis-server of its own on a fixed port, restartable. */
class RedisServer {
  private child: ChildProcess | null = null;
  constructor(readonly port: number) {}
  async start(): Promise<void> {
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 100; i++) {
      if (await portOpen(this.port)) return;
      await sleep(50);
    }
    throw new Error('redis-server did not start');
  }
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  }
}

/** The index of the first of `servers` to exit (within `timeoutMs`). */
async function firstToDie(servers: ServerProcess[], timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const dead = servers.findIndex((s) => s.exitReason !== undefined);
    if (dead >= 0) return dead;
    await sleep(20);
  }
  throw new Error(`no instance died within ${timeoutMs} ms of the relay fault`);
}

async function portOpen(port: number): Promise<boolean> {
  const { createConnection } = await import('node:net');
  return new Promise((resolve) => {
    const s = createConnection({ port, host: '127.0.0.1' });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

/** What the load saw, by phase. */
class Tally {
  phase = 'warm-up';
  readonly acked: string[] = [];
  /** The phase each acknowledged message was acknowledged in (same order as `acked`). */
  readonly ackedIn: string[] = [];
  readonly statuses = new Map<string, number>();
  readonly unexpected5xx: string[] = [];
  connectionErrors = 0;
  count(what: string, status: number): void {
    const key = `${this.phase} ${what} ${status}`;
    this.statuses.set(key, (this.statuses.get(key) ?? 0) + 1);
    if (status >= 500 && status !== 503) this.unexpected5xx.push(key);
  }
}

interface Fixtures {
  ownerToken: string;
  email: string;
  password: string;
  hookPath: string;
  adminKey: string;
  guildId: string;
  channelId: string;
  gatewayUsers: Array<{ token: string }>;
}

async function api(
  base: string,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(base + path, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    json = { text };
  }
  return { status: res.status, json };
}

async function must(
  base: string,
  path: string,
  init: Parameters<typeof api>[2] = {},
  expect?: number,
): Promise<Record<string, unknown>> {
  const res = await api(base, path, init);
  if (expect === undefined ? res.status < 200 || res.status > 299 : res.status !== expect) {
    throw new Error(`${path}: ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`);
  }
  return res.json;
}

async function register(base: string, tag: string) {
  const username = `${tag}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const email = `${username}@example.com`;
  const password = 'correct-horse-battery';
  const body = await must(base, '/v1/auth/register', {
    method: 'POST',
    body: { consent: true, date_of_birth: '1990-01-01', email, password, username },
  });
  return { token: body.token as string, userId: body.user_id as string, email, password };
}

/** One raw gateway client that resumes on another instance when its connection ends. */
class GatewayClient {
  readonly seqs: number[] = [];
  readonly messages: string[] = [];
  /** Every dispatch and op 9 received, with the connection it came on (written when it fails). */
  readonly trace: string[] = [];
  private connections = 0;
  sessionId = '';
  resumes = 0;
  invalidSessions = 0;
  identifies = 0;
  /** RESUMEDs whose number was not the last event's. */
  misnumberedResumes = 0;
  private ws: WebSocket | null = null;
  private stopped = false;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(
    readonly name: string,
    private readonly token: string,
    private readonly urls: () => string[],
    private startAt: number,
  ) {}

  async start(): Promise<void> {
    await this.connect(false);
  }

  stop(): void {
    this.stopped = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.ws?.close(1000);
  }

  get lastSeq(): number {
    return this.seqs.at(-1) ?? 0;
  }

  private connect(resume: boolean): Promise<void> {
    const urls = this.urls();
    const base = urls[this.startAt++ % urls.length];
    const conn = ++this.connections;
    this.trace.push(`connect ${conn} ${base} ${resume ? 'resume' : 'identify'}`);
    const ws = new WebSocket(`${base.replace('http', 'ws')}/gateway?v=10&encoding=json`);
    this.ws = ws;
    return new Promise((ready) => {
      ws.on('message', (data: Buffer) => {
        const f = JSON.parse(data.toString('utf8')) as {
          op: number;
          s: number | null;
          t: string | null;
          d: unknown;
        };
        if (f.op === 10) {
          const interval = (f.d as { heartbeat_interval: number }).heartbeat_interval;
          if (this.heartbeat) clearInterval(this.heartbeat);
          this.heartbeat = setInterval(
            () =>
              ws.readyState === ws.OPEN &&
              ws.send(JSON.stringify({ op: 1, d: this.lastSeq || null })),
            Math.min(interval, 5_000),
          );
          if (resume && this.sessionId) {
            this.resumes += 1;
            this.trace.push(`resume ${conn} ${this.sessionId} ${this.lastSeq}`);
            ws.send(
              JSON.stringify({
                op: 6,
                d: { token: this.token, session_id: this.sessionId, seq: this.lastSeq },
              }),
            );
          } else {
            this.identify(ws);
          }
        } else if (f.op === 9) {
          // Invalid session: identify again (a new session, its sequence starts over).
          this.invalidSessions += 1;
          this.trace.push(`op9 ${conn}`);
          this.seqs.push(-1);
          this.identify(ws);
        } else if (f.op === 7) {
          ws.close(4000);
        } else if (f.op === 0 && f.t === 'RESUMED') {
          // Not an event: it repeats the last number.
          this.trace.push(`${conn} ${f.s} RESUMED`);
          if (f.s !== this.lastSeq) this.misnumberedResumes += 1;
          ready();
        } else if (f.op === 0 && f.s === null) {
          // Ephemeral (presences, typing): outside the sequence, as clients treat it.
        } else if (f.op === 0) {
          this.seqs.push(f.s!);
          this.trace.push(`${conn} ${f.s} ${f.t} ${(f.d as { id?: string } | null)?.id ?? ''}`);
          if (f.t === 'READY') {
            this.sessionId = (f.d as { session_id: string }).session_id;
            ready();
          }
          if (f.t === 'MESSAGE_CREATE') this.messages.push((f.d as { id: string }).id);
        }
      });
      ws.on('error', () => undefined);
      ws.on('close', () => {
        if (this.stopped) return;
        // Another instance (or the same one, restarted): resume there after a short pause.
        setTimeout(() => void this.connect(true).then(ready), 200);
      });
    });
  }

  private identify(ws: WebSocket): void {
    this.identifies += 1;
    ws.send(
      JSON.stringify({
        op: 2,
        d: {
          token: this.token,
          intents: 0,
          properties: { os: 'linux', browser: 'chaos', device: 'chaos' },
        },
      }),
    );
  }

  /** Sequence numbers run 1, 2, 3… within each session (a -1 marks a new session); RESUMED repeats the last. */
  gaps(): number {
    let gaps = this.misnumberedResumes;
    let expected = 1;
    for (const s of this.seqs) {
      if (s === -1) {
        expected = 1;
        continue;
      }
      if (s !== expected) gaps += 1;
      expected = s + 1;
    }
    return gaps;
  }
}

/** The first admin key, as an operator makes it: `cli.js admin:bootstrap` (its last line). */
function bootstrapAdmin(node: string, databaseUrl: string, email: string, work: string): string {
  const out = execFileSync(node, ['dist/src/cli.js', 'admin:bootstrap', '--email', email], {
    cwd: ROOT,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      SECRET_KEY,
      DATA_DIR: join(work, 'cli'),
      LOG_LEVEL: 'warn',
    },
  });
  return out.trim().split('\n').at(-1)!.trim();
}

async function main(): Promise<void> {
  const runtime = describeRuntime(process.execPath);
  const work = mkdtempSync(join(tmpdir(), 'parley-chaos-'));
  chmodSync(work, 0o755);
  const logs = join(work, 'logs');
  mkdirSync(logs);
  say(
    `chaos run (${SHORT ? 'short' : 'full'}, phases of ${PHASE_MS} ms) on ${runtime.label}; files in ${work}`,
  );

  const killFile = join(work, 'kill-relay');
  const pgPort = await freePort();
  const startPg = () =>
    startEmbeddedPostgres({
      dataDir: join(work, 'postgres'),
      passwordFile: join(work, 'postgres.password'),
      port: pgPort,
    });
  let pg: EmbeddedPostgresHandle = await startPg();
  // Whatever happens below, nothing this run started outlives it.
  const instances: ServerProcess[] = [];
  const teardown = async () => {
    for (const s of instances) await s.stop().catch(() => undefined);
    await redis.stop().catch(() => undefined);
    await s3.close().catch(() => undefined);
    await pg.stop().catch(() => undefined);
  };
  process.once('uncaughtException', (err) => {
    console.error(err);
    void teardown().then(() => process.exit(1));
  });
  const redis = new RedisServer(await freePort());
  await redis.start();
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: join(work, 's3'),
    configureBuckets: [{ name: 'parley-chaos' }],
  });
  const s3Port = (await s3.run()).port;

  const env = (worker: number) => ({
    NODE_ENV: 'production',
    DATABASE_URL: pg.url,
    DATABASE_POOL_SIZE: '5',
    REDIS_URL: `redis://127.0.0.1:${redis.port}`,
    SECRET_KEY,
    WORKER_ID: String(worker),
    DATA_DIR: join(work, `data-${worker}`),
    BLOB_STORAGE: 's3',
    S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
    S3_BUCKET: 'parley-chaos',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
    // The load stays under every limit (it is not what is measured), except discovery: its 30 a
    // minute is the shared-limit check at the end.
    RATE_LIMIT_OVERRIDES:
      'global=100000/1s,auth:login=100000/1s,auth:register=100000/1s,' +
      'webhook:execute=100000/1s,discovery=30/60s',
    SHUTDOWN_GRACE_MS: '0',
    LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'warn',
    // The relay's fault (bench/chaos.ts only): whoever relays when this file appears dies.
    PARLEY_FAULT_RELAY_KILL_FILE: killFile,
    // Gateway clients reconnect from one address, and identify again after each op 9.
    GATEWAY_IDENTIFIES_PER_USER_PER_MINUTE: '1000',
  });
  const startInstance = (i: number) =>
    ServerProcess.start({
      name: `parley-${i}`,
      runtime,
      cwd: ROOT,
      script: APP_SCRIPT,
      env: env(i + 1),
      logFile: join(logs, `parley-${i}.log`),
      readyPath: '/v1/health/ready',
    });
  try {
    await run();
  } finally {
    await teardown();
    if (process.env.CHAOS_KEEP === '1') say(`files kept in ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }

  async function run(): Promise<void> {
    // The first one applies the migrations; then two more.
    instances.push(await startInstance(0));
    instances.push(...(await Promise.all([startInstance(1), startInstance(2)])));
    const urls = () => instances.map((s) => s.url);
    const tally = new Tally();

    // Fixtures, through the API (and the operator CLI for the first admin key).
    const base = instances[0].url;
    const owner = await register(base, 'owner');
    const guild = await must(base, '/v1/guilds', {
      method: 'POST',
      headers: { Authorization: owner.token },
      body: { name: 'Chaos' },
    });
    const channels = (await must(base, `/v1/guilds/${guild.id as string}/channels`, {
      headers: { Authorization: owner.token },
    })) as unknown as Array<{ id: string }>;
    const hook = await must(base, `/v1/channels/${channels[0].id}/webhooks`, {
      method: 'POST',
      headers: { Authorization: owner.token },
      body: { name: 'chaos' },
    });
    const adminKey = bootstrapAdmin(runtime.node, pg.url, owner.email, work);
    const gatewayUsers = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) => register(urls()[i % 3], `gw${i}`)),
    );
    await must(base, '/v1/admin/bulk/add-guild-members', {
      method: 'POST',
      headers: { Authorization: `Admin ${adminKey}` },
      body: { guild_id: guild.id, user_ids: gatewayUsers.map((u) => u.userId) },
    });
    const fx: Fixtures = {
      ownerToken: owner.token,
      email: owner.email,
      password: owner.password,
      hookPath: `/v1/webhooks/${hook.id as string}/${hook.token as string}?wait=true`,
      channelId: channels[0].id,
      adminKey,
      guildId: guild.id as string,
      gatewayUsers,
    };
    const clients = gatewayUsers.map((u, i) => new GatewayClient(`gw${i}`, u.token, urls, i));
    await Promise.all(clients.map((c) => c.start()));

    // Steady load: four loops, each request to the next instance in turn.
    let running = true;
    let turn = 0;
    /** While set, webhook posts go through this instance only (the Redis rounds: "through A"). */
    let postVia: number | null = null;
    const hit = async (
      what: string,
      path: string,
      init: Parameters<typeof api>[2],
      via: number | null = null,
    ) => {
      const target = urls()[via ?? turn++ % instances.length];
      try {
        const res = await api(target, path, init);
        tally.count(what, res.status);
        return res;
      } catch {
        tally.connectionErrors += 1;
        return null;
      }
    };
    const loops = [
      async () => {
        for (let i = 0; running; i++) {
          const res = await hit(
            'webhook',
            fx.hookPath,
            { method: 'POST', body: { content: `chaos ${i}` } },
            postVia,
          );
          if (res?.status === 200) {
            tally.acked.push(res.json.id as string);
            tally.ackedIn.push(tally.phase);
          }
          await sleep(10);
        }
      },
      async () => {
        while (running) {
          await hit('login', '/v1/auth/login', {
            method: 'POST',
            body: { email: fx.email, password: fx.password },
          });
          await sleep(100);
        }
      },
      async () => {
        while (running) {
          await hit('@me', '/v1/users/@me', { headers: { Authorization: fx.ownerToken } });
          await sleep(10);
        }
      },
      async () => {
        while (running) {
          await hit('admin', '/v1/admin/api-keys', {
            headers: { Authorization: `Admin ${fx.adminKey}` },
          });
          await sleep(50);
        }
      },
    ].map((loop) => loop());

    const phases: Array<{ name: string; ms: number }> = [];
    const phase = async (name: string, action: () => Promise<void>) => {
      tally.phase = name;
      const t0 = performance.now();
      say(`phase: ${name}`);
      await action();
      await sleep(PHASE_MS);
      phases.push({ name, ms: Math.round(performance.now() - t0) });
    };
    await phase('steady', async () => undefined);
    for (let round = 1; round <= FAULT_ROUNDS; round++) {
      await phase(
        `relay SIGKILLed between numbering and sending (${round}/${FAULT_ROUNDS})`,
        async () => {
          writeFileSync(killFile, '');
          const dead = await firstToDie(instances, 15_000);
          await sleep(300);
          instances[dead] = await startInstance(dead);
        },
      );
      await phase(
        `Redis stopped for ${REDIS_DOWN_MS / 1000} s, posts through one instance (${round}/${FAULT_ROUNDS})`,
        async () => {
          postVia = 0;
          await redis.stop();
          await sleep(REDIS_DOWN_MS);
          await redis.start();
          postVia = null;
        },
      );
    }
    await phase('PostgreSQL restarted', async () => {
      await pg.stop();
      await sleep(2_000);
      pg = await startPg();
    });
    await phase('after', async () => undefined);
    running = false;
    await Promise.all(loops);
    await sleep(1_000);

    // Acknowledged messages are all in the database.
    const db = new Client({ connectionString: pg.url });
    await db.connect();
    const found = await db.query<{ id: string }>(
      'SELECT id::text FROM messages WHERE id = ANY($1::bigint[])',
      [tally.acked],
    );
    await db.end();
    const lost = tally.acked.length - found.rowCount!;

    // Rate limits are shared: 30 discovery requests a minute in all, over the three instances.
    const discovery: number[] = [];
    for (let i = 0; i < 33; i++) {
      discovery.push((await api(urls()[i % 3], '/v1/.well-known/service')).status);
    }
    const allowed = discovery.filter((s) => s === 200).length;
    const shared = allowed <= 30 && discovery.slice(-3).every((s) => s === 429);

    // A revoked session is refused on every instance within 1 s.
    const session = await must(urls()[0], '/v1/auth/login', {
      method: 'POST',
      body: { email: fx.email, password: fx.password },
    });
    const token = session.token as string;
    for (const u of urls()) await must(u, '/v1/users/@me', { headers: { Authorization: token } });
    await must(
      urls()[0],
      '/v1/auth/logout',
      { method: 'POST', headers: { Authorization: token } },
      204,
    );
    const t0 = performance.now();
    const refusedAfter = await Promise.all(
      urls().map(async (u) => {
        for (;;) {
          const res = await api(u, '/v1/users/@me', { headers: { Authorization: token } });
          if (res.status === 401) return performance.now() - t0;
          if (performance.now() - t0 > 5_000) return Infinity;
          await sleep(20);
        }
      }),
    );

    // Gateway clients: every acknowledged message posted after they identified, once, in order —
    // or, after an op 9, in the channel's history.
    await sleep(1_000);
    clients.forEach((c) => c.stop());
    const history = new Set<string>();
    for (let before: string | null = null; ;) {
      const page = (await must(
        urls()[0],
        `/v1/channels/${fx.channelId}/messages?limit=100${before ? `&before=${before}` : ''}`,
        { headers: { Authorization: fx.ownerToken } },
      )) as unknown as Array<{ id: string }>;
      for (const m of page) history.add(m.id);
      if (page.length < 100) break;
      before = page[page.length - 1].id;
    }
    const gatewayRows = clients.map((c) => {
      const first = tally.acked.indexOf(c.messages[0]);
      const seen = new Set(c.messages);
      const expected = first < 0 ? [] : tally.acked.slice(first);
      const missed = expected.filter((id) => !seen.has(id));
      // In order: what it received is the acknowledged order, with only the missed ones left out.
      // Only acknowledged messages are compared: a post whose instance was SIGKILLed after its
      // commit but before its answer is stored and delivered (rightly), yet the poster never
      // heard of it, so it has no place in the acknowledged order.
      const acked = new Set(tally.acked);
      const received = c.messages.filter((id, i) => c.messages.indexOf(id) === i && acked.has(id));
      const ordered =
        JSON.stringify(received) === JSON.stringify(expected.filter((id) => seen.has(id)));
      return {
        name: c.name,
        resumes: c.resumes,
        invalid: c.invalidSessions,
        gaps: c.gaps(),
        missing: c.invalidSessions === 0 ? missed.length : 0,
        missedAfterOp9: c.invalidSessions > 0 ? missed.length : 0,
        missedNotInHistory: missed.filter((id) => !history.has(id)).length,
        duplicates: c.messages.length - seen.size,
        // Stored and delivered, never acknowledged (its instance died between commit and answer).
        unacknowledged: [...seen].filter((id) => !acked.has(id)).length,
        ordered,
      };
    });

    // What a failing client received, frame by frame, beside the instances' logs.
    gatewayRows.forEach((r, i) => {
      if (r.gaps || r.duplicates || r.missing || r.missedNotInHistory || !r.ordered) {
        writeFileSync(join(logs, `${r.name}.trace`), clients[i].trace.join('\n') + '\n');
      }
    });
    for (const s of instances.splice(0)) await s.stop();

    const maxRevoke = Math.max(...refusedAfter);
    const statusLines = [...tally.statuses].sort().map(([k, n]) => `| ${k} | ${n} |`);
    const pass = {
      lost: lost === 0,
      fivexx: tally.unexpected5xx.length === 0,
      shared,
      revoked: maxRevoke <= 1_000,
      gateway: gatewayRows.every(
        (r) =>
          r.gaps === 0 &&
          r.duplicates === 0 &&
          r.missing === 0 &&
          r.missedNotInHistory === 0 &&
          r.ordered,
      ),
    };
    const report = [
      `# Chaos run — ${new Date().toISOString()} — ${runtime.label} (${SHORT ? 'short' : 'full'}, phases of ${PHASE_MS} ms)`,
      '',
      `phases: ${phases.map((p) => `${p.name} (${(p.ms / 1000).toFixed(1)} s)`).join(' → ')}`,
      '',
      '| check | result | pass |',
      '|---|---|---|',
      `| acknowledged webhook messages missing from the database | ${lost} of ${tally.acked.length} | ${pass.lost ? 'yes' : 'NO'} |`,
      `| 5xx other than 503 | ${tally.unexpected5xx.length}${tally.unexpected5xx.length ? ` (${[...new Set(tally.unexpected5xx)].join('; ')})` : ''} | ${pass.fivexx ? 'yes' : 'NO'} |`,
      `| rate limit shared (discovery 30/min over 3 instances): allowed of 33 | ${allowed}, last three ${discovery.slice(-3).join('/')} | ${pass.shared ? 'yes' : 'NO'} |`,
      `| revoked session refused on every instance after | ${refusedAfter.map((ms) => `${Math.round(ms)} ms`).join(', ')} | ${pass.revoked ? 'yes' : 'NO'} |`,
      `| gateway clients with a sequence gap, a duplicate, a message out of order, or one missed silently (without op 9) or missing from the history | ${gatewayRows.filter((r) => r.gaps || r.duplicates || r.missing || r.missedNotInHistory || !r.ordered).length} of ${gatewayRows.length} | ${pass.gateway ? 'yes' : 'NO'} |`,
      `| requests refused at the socket (instance down) | ${tally.connectionErrors} | — |`,
      '',
      '| gateway client | resumes | op 9 (identified again) | seq gaps | acknowledged messages missed silently | missed after an op 9 (in the history) | duplicates | delivered, never acknowledged | in order |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---|',
      ...gatewayRows.map(
        (r) =>
          `| ${r.name} | ${r.resumes} | ${r.invalid} | ${r.gaps} | ${r.missing} | ${r.missedAfterOp9 - r.missedNotInHistory} of ${r.missedAfterOp9} | ${r.duplicates} | ${r.unacknowledged} | ${r.ordered ? 'yes' : 'NO'} |`,
      ),
      '',
      '| phase, request, status | count |',
      '|---|---:|',
      ...statusLines,
    ].join('\n');
    say('');
    say(report);
    mkdirSync(join(ROOT, 'bench', 'out'), { recursive: true });
    writeFileSync(join(ROOT, 'bench', 'out', 'chaos-latest.md'), report + '\n');
    const failed = Object.entries(pass)
      .filter(([, ok]) => !ok)
      .map(([k]) => k);
    if (failed.length > 0) {
      say(`chaos run FAILED: ${failed.join(', ')}`);
      process.exitCode = 1;
      return;
    }
    say('chaos run passed');
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
