/**
 * The attachments bench (`npm run bench:attachments`, issue 30's performance rows): files up and
 * down through Parley in a production process (`node dist/src/main.js`, NODE_ENV=production,
 * rate limits off) against a bare Node http server copying the same bytes to and from the same
 * store (dist/bench/bare-store.js), on the same runtime, in the same run, one after the other:
 *
 * - upload: `POST /v1/channels/{id}/messages` with Discord's multipart form (`payload_json` +
 *   one `files[0]` of BENCH_FILE_MIB, default 10 MiB; a user token), BENCH_CONCURRENCY (4)
 *   uploads at a time for BENCH_DURATION (3) s, vs the bare server's `pipeline(req,
 *   fs.createWriteStream)` (disk) or lib-storage `Upload` straight from the request (S3) of the
 *   same body — target ≥ 50 % of bare;
 * - download: `GET` of a posted message's `attachments[0].url` (the signed link) vs the bare
 *   server's `pipeline(fs.createReadStream(file), res)` (disk) or GetObject's body piped to the
 *   response (S3) — target ≥ 60 %;
 * - memory (first, on freshly started servers that have taken and served one file): the
 *   server's RSS (/proc/<pid>/status VmRSS) settled before, at its peak during each of two
 *   bursts of 20 concurrent uploads of that file (200 MiB each; sampled every 10 ms, and the
 *   kernel's high-water mark VmHWM reset before each), and 5 s after, Parley and the bare server
 *   — target: Parley's peak growth ≤ 32 MiB (the bound issue 30 sets for one 100 MiB upload),
 *   i.e. flat, not proportional to what was sent; the second burst shows whether a repeat grows
 *   it again.
 *
 * Throughput rows alternate bare and Parley over BENCH_ROUNDS (2) rounds and report the mean, so
 * drift on this shared machine falls on both. The S3 store is s3rver (as in the e2e tests) in
 * its own process on the machine's node; the disk store is the run's temp folder. Both stores'
 * uploaded files are removed between rounds (the download fixtures stay).
 *
 * Knobs: BENCH_PG (a PostgreSQL server URL; a scratch database is made and dropped) or
 * BENCH_DATABASE_URL; BENCH_RUNTIMES=both (Node 20 and 24, as bench/run.ts); BENCH_STORES
 * (disk,s3); BENCH_ATTACHMENT_ROWS (upload,download,rss); BENCH_FILE_MIB, BENCH_CONCURRENCY,
 * BENCH_DURATION, BENCH_ROUNDS, BENCH_RSS_UPLOADS (20); BENCH_APP_DIR (another build of the app);
 * BENCH_SERVER_ENV; BENCH_KEEP=1. Output on stdout and in bench/out/attachments-latest.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtures } from './gateway-clients';
import { statusBytes } from './proc';
import {
  appDir,
  describeRuntime,
  linkModules,
  nodeModulesFor,
  ROOT,
  selectRuntimes,
  type Runtime,
} from './runtimes';
import { scratchDatabase } from './scratch-database';
import { APP_SCRIPT, ServerProcess } from './servers';
import {
  agentFor,
  download,
  MiB,
  multipartBody,
  post,
  throughput,
  type Throughput,
  type Transfer,
} from './transfer-client';

const SECRET_KEY = 'e'.repeat(64);
const FILE_MIB = Number(process.env.BENCH_FILE_MIB ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const DURATION = Number(process.env.BENCH_DURATION ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const RSS_UPLOADS = Number(process.env.BENCH_RSS_UPLOADS ?? 20);
/** Peak RSS growth allowed across the burst: issue 30's bound for one 100 MiB upload. */
const RSS_BOUND = 32 * MiB;
const BUCKET = 'bench';
/** s3rver's fixed credentials. */
const S3_KEY = 'S3RVER';

const say = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rss = (s: ServerProcess) => statusBytes(s.pid, 'VmRSS') ?? 0;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The bytes the bench sends: one random file, and the form that carries it. */
const FILE = randomBytes(FILE_MIB * MiB);
const FILENAME = 'bench.bin';
const FORM = multipartBody(FILE, FILENAME);

/** One store's pair of servers and how to move a file through each. */
interface Pair {
  store: 'disk' | 's3';
  parley: ServerProcess;
  bare: ServerProcess;
  uploadParley: Transfer;
  uploadBare: Transfer;
  downloadParley: Transfer;
  downloadBare: Transfer;
  /** Removes what the upload rows stored (not the download fixtures). */
  clean: () => void;
}

function uploader(url: string, headers: Record<string, string>, agent: Agent, ok: number) {
  return async (): Promise<{ status: number; text: string }> => {
    const res = await post(url, FORM.body, { ...headers, 'content-type': FORM.contentType }, agent);
    if (res.status !== ok) throw new Error(`${url}: ${res.status} ${res.text.slice(0, 300)}`);
    return res;
  };
}

function downloader(url: string, agent: Agent, size: number): Transfer {
  return async () => {
    const res = await download(url, agent);
    return res.status === 200 && res.bytes === size ? res.bytes : null;
  };
}

/** Removes every file under `dir` (recursively) but those named in `keep`. */
function removeFiles(dir: string, keep: Set<string>): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) removeFiles(path, keep);
    else if (!keep.has(e.name)) rmSync(path, { force: true });
  }
}

/**
 * Starts Parley and the bare server on one store, checks that each takes and serves the file
 * (status and size), and leaves a file in each for the download rows.
 */
async function startPair(
  store: 'disk' | 's3',
  rt: Runtime,
  cwd: string,
  dbUrl: string,
  work: string,
  s3Env: Record<string, string>,
  fx: (base: string) => Promise<{ token: string; channelId: string }>,
): Promise<Pair> {
  const tag = `${rt.label.replace(/\W/g, '')}-${store}`;
  const dataDir = join(work, `data-${tag}`);
  const bareDir = join(work, `bare-${tag}`);
  mkdirSync(dataDir, { recursive: true });
  const storeEnv = store === 's3' ? s3Env : {};
  const parley = await ServerProcess.start({
    name: `parley-${tag}`,
    runtime: rt,
    cwd: process.env.BENCH_APP_DIR ?? cwd,
    script: APP_SCRIPT,
    env: {
      NODE_ENV: 'production',
      RATE_LIMITS: 'off',
      DATA_DIR: dataDir,
      DATABASE_URL: dbUrl,
      SECRET_KEY,
      SHUTDOWN_GRACE_MS: '0',
      ...storeEnv,
    },
    logFile: join(work, `parley-${tag}.log`),
    readyPath: '/v1/health/ready',
  });
  let bare: ServerProcess;
  try {
    bare = await ServerProcess.start({
      name: `bare-${tag}`,
      runtime: rt,
      cwd,
      script: 'dist/bench/bare-store.js',
      env: {
        NODE_ENV: 'production',
        BARE_DIR: bareDir,
        ...(store === 's3' ? { BARE_STORE: 's3', ...storeEnv } : {}),
      },
      logFile: join(work, `bare-${tag}.log`),
      readyPath: '/ping',
    });
  } catch (err) {
    await parley.stop();
    throw err;
  }
  const { token, channelId } = await fx(parley.url);
  const sockets = Math.max(CONCURRENCY, RSS_UPLOADS);
  const parleyAgent = agentFor(sockets);
  const bareAgent = agentFor(sockets);
  const postParley = uploader(
    `${parley.url}/v1/channels/${channelId}/messages`,
    { authorization: token },
    parleyAgent,
    201,
  );
  const postBare = uploader(`${bare.url}/upload`, {}, bareAgent, 200);

  // The download fixtures, and a check that both store what was sent.
  const message = JSON.parse((await postParley()).text) as {
    attachments: Array<{ id: string; url: string; size: number }>;
  };
  const attachment = message.attachments[0];
  if (attachment?.size !== FILE.length) {
    throw new Error(`parley stored ${attachment?.size} bytes, not ${FILE.length}`);
  }
  // The link names the app's PUBLIC_URL (localhost:<its PORT>): the same path on this server.
  const link = new URL(attachment.url);
  const parleyLink = `${parley.url}${link.pathname}${link.search}`;
  const { key } = JSON.parse((await postBare()).text) as { key: string };
  const keep = new Set([attachment.id, key]);
  for (const [name, one] of [
    ['parley', downloader(parleyLink, parleyAgent, FILE.length)],
    ['bare', downloader(`${bare.url}/download/${key}`, bareAgent, FORM.body.length)],
  ] as const) {
    if ((await one()) === null) throw new Error(`${name} (${store}): the download fixture fails`);
  }
  const asTransfer =
    (send: () => Promise<unknown>): Transfer =>
    async () => {
      await send();
      return FILE.length;
    };
  return {
    store,
    parley,
    bare,
    uploadParley: asTransfer(postParley),
    uploadBare: asTransfer(postBare),
    downloadParley: downloader(parleyLink, parleyAgent, FILE.length),
    downloadBare: downloader(`${bare.url}/download/${key}`, bareAgent, FORM.body.length),
    clean: () => {
      if (store !== 'disk') return;
      removeFiles(join(dataDir, 'attachments'), keep);
      removeFiles(bareDir, keep);
    },
  };
}

interface Compared {
  parley: Throughput[];
  bare: Throughput[];
}

/**
 * Bare and Parley in alternating order over ROUNDS rounds (a short warm-up of each first), the
 * stores cleaned after every window.
 */
async function compare(pair: Pair, parley: Transfer, bare: Transfer): Promise<Compared> {
  const out: Compared = { parley: [], bare: [] };
  await throughput(CONCURRENCY, 0.5, bare);
  await throughput(CONCURRENCY, 0.5, parley);
  pair.clean();
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['bare', 'parley'] as const) : (['parley', 'bare'] as const);
    for (const who of order) {
      const server = who === 'bare' ? pair.bare : pair.parley;
      await server.quiet(5_000);
      const cpu0 = server.cpu();
      const load0 = process.cpuUsage();
      const r = await throughput(CONCURRENCY, DURATION, who === 'bare' ? bare : parley);
      const cpu = (server.cpu() - cpu0) / r.seconds;
      const loadUsed = process.cpuUsage(load0);
      const load = (loadUsed.user + loadUsed.system) / 1e6 / r.seconds;
      out[who].push(r);
      pair.clean();
      say(
        `  round ${round + 1} ${who}: ${r.mibps.toFixed(1)} MiB/s (${r.transfers} transfers` +
          `${r.failures ? `, ${r.failures} FAILED` : ''}, ${r.seconds.toFixed(1)} s; CPU ` +
          `server ${pct(cpu)}, load gen ${pct(load)})`,
      );
      const dead = server.exitReason;
      if (dead) throw new Error(dead);
    }
  }
  return out;
}

/** Resets the kernel's RSS high-water mark (VmHWM) of a process we started; false if refused. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

interface RssBursts {
  /** Settled RSS before the first burst. */
  before: number;
  /** Per burst: settled RSS before it, and its peak. */
  bursts: Array<{ from: number; peak: number }>;
  /** 5 s after the last burst. */
  after: number;
  failures: number;
}

/** Peak RSS during RSS_UPLOADS concurrent uploads: sampled every 10 ms, and VmHWM reset before. */
async function burstPeak(
  server: ServerProcess,
  one: Transfer,
): Promise<{ peak: number; failed: number }> {
  const hwm = resetPeak(server.pid);
  let peak = rss(server);
  const timer = setInterval(() => (peak = Math.max(peak, rss(server))), 10);
  const results = await Promise.all(
    Array.from({ length: RSS_UPLOADS }, () => one().catch(() => null)),
  );
  clearInterval(timer);
  peak = Math.max(peak, rss(server), hwm ? (statusBytes(server.pid, 'VmHWM') ?? 0) : 0);
  return { peak, failed: results.filter((r) => r === null).length };
}

/**
 * RSS of a fresh server before, at the peak of each of two bursts of RSS_UPLOADS concurrent
 * uploads (the second shows whether a repeat grows it again), and 5 s after.
 */
async function rssBursts(
  server: ServerProcess,
  one: Transfer,
  clean: () => void,
): Promise<RssBursts> {
  await server.quiet(10_000);
  await sleep(1_000);
  const before = rss(server);
  const bursts: RssBursts['bursts'] = [];
  let failures = 0;
  for (let i = 0; i < 2; i++) {
    if (i > 0) {
      await server.quiet(10_000);
      await sleep(1_000);
    }
    const from = rss(server);
    const { peak, failed } = await burstPeak(server, one);
    failures += failed;
    bursts.push({ from, peak });
    clean();
  }
  await server.quiet(10_000);
  await sleep(5_000);
  return { before, bursts, after: rss(server), failures };
}

function throughputRows(
  rt: Runtime,
  what: string,
  c: Compared,
  target: number,
): { row: string; ratio: number } {
  const p = mean(c.parley.map((r) => r.mibps));
  const b = mean(c.bare.map((r) => r.mibps));
  const failed = [...c.parley, ...c.bare].some((r) => r.failures > 0);
  const ratio = p / b;
  const verdict = failed ? 'invalid (failed transfers)' : ratio >= target ? 'met' : 'missed';
  const range = (rs: Throughput[]) => rs.map((r) => r.mibps.toFixed(0)).join(', ');
  return {
    ratio,
    row:
      `| ${rt.label} | ${what} | ${p.toFixed(1)} (${range(c.parley)}) | ${b.toFixed(1)} ` +
      `(${range(c.bare)}) | ${pct(ratio)} | ≥ ${pct(target)} of bare | ${verdict} |`,
  };
}

async function benchStore(
  store: 'disk' | 's3',
  rt: Runtime,
  cwd: string,
  dbUrl: string,
  work: string,
  s3Env: Record<string, string>,
  fx: (base: string) => Promise<{ token: string; channelId: string }>,
): Promise<string[]> {
  const rowsWanted = (process.env.BENCH_ATTACHMENT_ROWS ?? 'upload,download,rss').split(',');
  const rows: string[] = [];
  const pair = await startPair(store, rt, cwd, dbUrl, work, s3Env, fx);
  const where = store === 'disk' ? 'disk' : 'S3 (s3rver)';
  const bareUp =
    store === 'disk' ? '`pipeline(req, createWriteStream)`' : 'lib-storage `Upload` from `req`';
  const bareDown =
    store === 'disk' ? '`pipeline(createReadStream, res)`' : 'GetObject body piped to `res`';
  try {
    if (rowsWanted.includes('rss')) {
      say(`${rt.label} ${store}: RSS across ${RSS_UPLOADS} concurrent uploads`);
      const p = await rssBursts(pair.parley, pair.uploadParley, pair.clean);
      const b = await rssBursts(pair.bare, pair.uploadBare, pair.clean);
      const signed = (bytes: number) => `${bytes >= 0 ? '+' : '−'}${mib(Math.abs(bytes))}`;
      const show = (r: RssBursts) =>
        `${mib(r.before)} → ${mib(r.bursts[0].peak)} (${signed(r.bursts[0].peak - r.before)}) → ` +
        `${mib(r.bursts[1].peak)} (${signed(r.bursts[1].peak - r.bursts[1].from)}) → ` +
        `${mib(r.after)} (${signed(r.after - r.before)})`;
      const growth = Math.max(...p.bursts.map((x) => x.peak)) - p.before;
      const verdict =
        p.failures || b.failures
          ? `invalid (${p.failures + b.failures} failed uploads)`
          : growth <= RSS_BOUND
            ? 'met'
            : 'missed';
      rows.push(
        `| ${rt.label} | RSS of a fresh server, two bursts of ${RSS_UPLOADS} concurrent ${FILE_MIB} MiB ` +
          `uploads to ${where} (${RSS_UPLOADS * FILE_MIB} MiB each): before → peak of the 1st ` +
          `(growth) → peak of the 2nd (growth over its start) → 5 s after | ${show(p)} | ` +
          `${show(b)} | – | peak growth ≤ ${mib(RSS_BOUND)} | ${verdict} |`,
      );
      say(rows.at(-1)!);
    }
    if (rowsWanted.includes('upload')) {
      say(`${rt.label} ${store}: upload`);
      const c = await compare(pair, pair.uploadParley, pair.uploadBare);
      rows.push(
        throughputRows(
          rt,
          `upload to ${where}: multipart \`POST /v1/channels/{id}/messages\`, ${FILE_MIB} MiB file, ` +
            `${CONCURRENCY} concurrent, MiB/s (rounds) — bare: ${bareUp}`,
          c,
          0.5,
        ).row,
      );
      say(rows.at(-1)!);
    }
    if (rowsWanted.includes('download')) {
      say(`${rt.label} ${store}: download`);
      const c = await compare(pair, pair.downloadParley, pair.downloadBare);
      rows.push(
        throughputRows(
          rt,
          `download from ${where}: \`GET\` of the signed \`attachments[0].url\`, ${FILE_MIB} MiB, ` +
            `${CONCURRENCY} concurrent, MiB/s (rounds) — bare: ${bareDown}`,
          c,
          0.6,
        ).row,
      );
      say(rows.at(-1)!);
    }
  } finally {
    await pair.parley.stop();
    await pair.bare.stop();
  }
  return rows;
}

async function main(): Promise<void> {
  const runtimes = selectRuntimes();
  const stores = (process.env.BENCH_STORES ?? 'disk,s3').split(',') as Array<'disk' | 's3'>;
  const work = mkdtempSync(join(tmpdir(), 'parley-attbench-'));
  const db = await scratchDatabase('parley_attbench');
  const rows: string[] = [];
  let s3: ServerProcess | undefined;
  const t0 = Date.now();
  try {
    // The S3 store: s3rver on the machine's node, the same for every runtime.
    const s3Env: Record<string, string> = {};
    if (stores.includes('s3')) {
      const machine = describeRuntime(process.execPath);
      const storeDir = appDir(join(work, 'store'));
      linkModules(storeDir, nodeModulesFor(machine));
      s3 = await ServerProcess.start({
        name: 's3rver',
        runtime: machine,
        cwd: storeDir,
        script: 'dist/bench/s3-store.js',
        env: { S3_DIR: join(work, 's3'), S3_BUCKET: BUCKET },
        logFile: join(work, 's3rver.log'),
        readyPath: `/${BUCKET}`,
      });
      Object.assign(s3Env, {
        BLOB_STORAGE: 's3',
        S3_ENDPOINT: s3.url,
        S3_REGION: 'us-east-1',
        S3_BUCKET: BUCKET,
        S3_ACCESS_KEY_ID: S3_KEY,
        S3_SECRET_ACCESS_KEY: S3_KEY,
        S3_FORCE_PATH_STYLE: 'true',
      });
    }
    // One user, guild and channel for the run (the database is shared), made on the first server.
    let fx: { token: string; channelId: string } | undefined;
    const fixturesOn = async (base: string) => (fx ??= await fixtures(base));
    say(
      `attachments bench: ${FILE_MIB} MiB file, ${CONCURRENCY} concurrent, ${DURATION} s × ` +
        `${ROUNDS} rounds per row, RSS across ${RSS_UPLOADS} concurrent uploads`,
    );
    for (const [i, rt] of runtimes.entries()) {
      say(`${rt.label} (${rt.version}, ${rt.execPath})`);
      const cwd = appDir(join(work, `app-${i}`));
      linkModules(cwd, nodeModulesFor(rt));
      for (const store of stores) {
        rows.push(...(await benchStore(store, rt, cwd, db.url, work, s3Env, fixturesOn)));
      }
    }
  } finally {
    await s3?.stop();
    await db.drop().catch(() => undefined);
    if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
    else say(`kept ${work}`);
  }
  const table = [
    `Attachments — ${new Date().toISOString()} — ${((Date.now() - t0) / 1000).toFixed(0)} s`,
    '',
    '| runtime | row | Parley | bare | Parley / bare | target | |',
    '|---|---|---:|---:|---:|---|---|',
    ...rows,
  ].join('\n');
  mkdirSync(join(ROOT, 'bench', 'out'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'out', 'attachments-latest.md'), `${table}\n`);
  say(`\n${table}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
