/**
 * What an idle gateway connection costs, and where (`npm run bench:gateway-memory`): a production
 * process (`node dist/src/main.js`, as bench/gateway.ts starts it) with N identified user
 * sessions held open and idle, as the gateway bench's memory rows measure them — RSS settled
 * before and after, divided by N — plus a heap snapshot taken by the server itself
 * (`--heapsnapshot-signal`) once they are open, broken down by constructor: the live heap per
 * connection and what it is made of. The rest of RSS is what V8 and the allocator keep beyond the
 * live heap (young generation, fragmentation, high-water marks).
 *
 * Knobs: BENCH_PG / BENCH_DATABASE_URL (as bench/gateway.ts), BENCH_RUNTIMES,
 * BENCH_GATEWAY_CONNECTIONS (default 5000), BENCH_GATEWAY_COMPRESS=1 (zlib-stream),
 * BENCH_APP_DIR (another build to measure, e.g. the commit before a change: a checkout with its
 * dist and node_modules). Output on stdout.
 */
import {
  closeSync,
  createReadStream,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { statusBytes } from './proc';
import { appDir, linkModules, nodeModulesFor, selectRuntimes } from './runtimes';
import { freePort } from '../src/common/http/free-port';
import { scratchDatabase } from './scratch-database';
import { APP_SCRIPT, ServerProcess } from './servers';
import { userWithGuild } from './api';
import WebSocket from 'ws';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (line: string) => process.stdout.write(`${line}\n`);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

async function userInAGuild(base: string): Promise<string> {
  return (await userWithGuild(base, 'mem', 'memory bench')).token;
}

/** An identified, idle client: heartbeats (acknowledging what it got), nothing else. */
function open(url: string, token: string | null): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    let seq: number | null = null;
    let hello = false;
    ws.on('error', reject);
    ws.on('message', (data: Buffer, binary: boolean) => {
      if (!hello) {
        hello = true;
        if (!token) {
          resolve(ws);
          return;
        }
        ws.send(
          JSON.stringify({
            op: 2,
            d: { token, properties: { os: 'linux', browser: 'bench', device: 'bench' } },
          }),
        );
        return;
      }
      if (binary) {
        resolve(ws);
        return;
      }
      const text = data.toString();
      const s = /^\{"op":0,"s":(\d+)/.exec(text);
      if (s) seq = Number(s[1]);
      if (text.includes('"t":"GUILD_CREATE"')) {
        setTimeout(() => ws.send(`{"op":1,"d":${seq}}`), 1_000).unref();
        resolve(ws);
      }
    });
  });
}

/** Whether a heap snapshot file is written to its end (the JSON closed). */
function complete(path: string): boolean {
  const size = statSync(path).size;
  if (size < 2) return false;
  const fd = openSync(path, 'r');
  try {
    const tail = Buffer.alloc(Math.min(16, size));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    return /\]\s*\}\s*$/.test(tail.toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

interface Row {
  type: string;
  name: string;
  count: number;
  size: number;
}

/** Self sizes of a heap snapshot's nodes, summed by node type and constructor name. */
async function breakdown(file: string): Promise<Row[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of createReadStream(file)) chunks.push(chunk as Buffer);
  const snap = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = snap.snapshot.meta.node_types[0];
  const rows = new Map<string, Row>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]];
    const name =
      type === 'object' || type === 'closure' || type === 'hidden' || type === 'native'
        ? snap.strings[snap.nodes[i + nameAt]]
        : '';
    const key = `${type}\u0000${name}`;
    const row = rows.get(key) ?? { type, name, count: 0, size: 0 };
    row.count += 1;
    row.size += snap.nodes[i + sizeAt];
    rows.set(key, row);
  }
  return [...rows.values()];
}

/** Makes the server write a heap snapshot (SIGUSR2) and reads its breakdown. */
async function snapshot(pid: number, dir: string): Promise<Row[]> {
  const seen = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  for (let t = 0; t < 600; t++) {
    await sleep(500);
    const file = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !seen.has(f));
    if (file && complete(join(dir, file))) return breakdown(join(dir, file));
  }
  throw new Error('no heap snapshot within 5 minutes');
}

async function main(): Promise<void> {
  const n = Number(process.env.BENCH_GATEWAY_CONNECTIONS ?? 5_000);
  const compress = process.env.BENCH_GATEWAY_COMPRESS === '1';
  const work = mkdtempSync(join(tmpdir(), 'parley-gwmem-'));
  const db = await scratchDatabase('parley_gwmem');
  try {
    for (const [i, rt] of selectRuntimes().entries()) {
      const cwd = process.env.BENCH_APP_DIR ?? appDir(join(work, `app-${i}`));
      if (!process.env.BENCH_APP_DIR) linkModules(cwd, nodeModulesFor(rt));
      const dataDir = join(work, `data-${i}`);
      mkdirSync(dataDir, { recursive: true });
      const snapshots = join(work, `snapshots-${i}`);
      const metricsPort = await freePort();
      /** V8's and Node's own view (prom-client's default metrics), in KB. */
      const heap = async () => {
        const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        const v = (name: string) =>
          Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) / 1024;
        return `heap used ${v('nodejs_heap_size_used_bytes').toFixed(0)} KB of ${v('nodejs_heap_size_total_bytes').toFixed(0)} KB, external ${v('nodejs_external_memory_bytes').toFixed(0)} KB`;
      };
      mkdirSync(snapshots, { recursive: true });
      const server = await ServerProcess.start({
        name: `parley-${i}`,
        runtime: rt,
        cwd,
        script: APP_SCRIPT,
        execArgv: [
          '--heapsnapshot-signal=SIGUSR2',
          `--diagnostic-dir=${snapshots}`,
          ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
        ],
        env: {
          NODE_ENV: 'production',
          RATE_LIMITS: 'off',
          DATA_DIR: dataDir,
          DATABASE_URL: db.url,
          SECRET_KEY: 'b'.repeat(64),
          SHUTDOWN_GRACE_MS: '0',
          GATEWAY_MAX_CONNECTIONS: '0',
          GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '1000000',
          GATEWAY_MAX_SESSIONS_PER_USER: '10000',
          LOG_LEVEL: 'warn',
          METRICS_PORT: String(metricsPort),
        },
        logFile: join(work, `parley-${i}.log`),
        readyPath: '/v1/health/ready',
      });
      try {
        const token = await userInAGuild(server.url);
        const url = `${server.url.replace('http', 'ws')}/gateway?v=10&encoding=json${compress ? '&compress=zlib-stream' : ''}`;
        await sleep(12_000);
        const before = statusBytes(server.pid, 'VmRSS') ?? 0;
        say(`before: ${await heap()}`);
        const sockets: WebSocket[] = [];
        for (let k = 0; k < n; k += 250) {
          sockets.push(
            ...(await Promise.all(
              Array.from({ length: Math.min(250, n - k) }, () =>
                open(url, process.env.BENCH_GATEWAY_IDENTIFY === '0' ? null : token),
              ),
            )),
          );
        }
        await sleep(Number(process.env.BENCH_SETTLE_MS ?? 12_000));
        const after = statusBytes(server.pid, 'VmRSS') ?? 0;
        say(`after: ${await heap()}`);
        say(
          `${rt.label}${process.env.BENCH_APP_DIR ? ` (${process.env.BENCH_APP_DIR})` : ''}: ${n} idle identified connections${compress ? ' (zlib-stream)' : ''}: RSS ${kb(before)} → ${kb(after)}, ${kb((after - before) / n)} per connection`,
        );
        // Snapshots after the RSS readings (writing one costs memory): with the connections, then
        // without them (closed, settled) as the baseline.
        const heapAfter = await snapshot(server.pid, snapshots);
        for (const ws of sockets) ws.terminate();
        await sleep(12_000);
        const heapBefore = await snapshot(server.pid, snapshots);
        const base = new Map(heapBefore.map((r) => [`${r.type}\u0000${r.name}`, r]));
        const grown = heapAfter.map((r) => {
          const was = base.get(`${r.type}\u0000${r.name}`);
          return { ...r, count: r.count - (was?.count ?? 0), size: r.size - (was?.size ?? 0) };
        });
        const total = grown.reduce((sum, r) => sum + r.size, 0);
        say(
          `live heap grown by ${kb(total)}: ${kb(total / n)} per connection; by constructor (snapshot after − before):`,
        );
        say('| kind | constructor | count per connection | bytes per connection |');
        say('|---|---|---:|---:|');
        for (const r of grown.sort((x, y) => y.size - x.size).slice(0, 25)) {
          say(
            `| ${r.type} | ${r.name || '–'} | ${(r.count / n).toFixed(2)} | ${(r.size / n).toFixed(0)} |`,
          );
        }
      } finally {
        await server.stop();
      }
    }
  } finally {
    await db.drop().catch(() => undefined);
    if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
