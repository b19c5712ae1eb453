/**
 * What metrics and tracing cost (`npm run bench:observability`): the same build started as
 * production starts it (`node dist/src/main.js`, NODE_ENV=production, rate limits off) three ways —
 * plain, with METRICS_PORT (Prometheus metrics on), and with OTEL_EXPORTER_OTLP_ENDPOINT (traces
 * to a local OTLP/HTTP sink that answers 200 and discards) — and measured on the hot paths
 * (discovery, `@me`) in alternating rounds, so drift on this shared machine falls on every
 * variant alike. Also: time from spawn to ready (the embedded database is not involved: a
 * PostgreSQL server is given), plain vs tracing configured.
 *
 * Knobs: BENCH_PG (a PostgreSQL server URL; a scratch database is made and dropped) or
 * BENCH_DATABASE_URL; BENCH_ROUNDS (default 3), BENCH_DURATION (seconds per row, default 6);
 * BENCH_NODE (the runtime, default this one). Output on stdout and in
 * bench/out/observability-latest.md.
 */
import autocannon from 'autocannon';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeRuntime, ROOT } from './runtimes';
import { scratchDatabase } from './scratch-database';
import { APP_SCRIPT, ServerProcess } from './servers';

const SECRET_KEY = 'd'.repeat(64);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION = Number(process.env.BENCH_DURATION ?? 6);
const say = (line: string) => process.stdout.write(`${line}\n`);

async function rate(url: string, headers: Record<string, string> = {}): Promise<number> {
  const result = await autocannon({ url, connections: 50, duration: DURATION, headers });
  return result.requests.average;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const runtime = describeRuntime(process.env.BENCH_NODE || process.execPath);
  const db = await scratchDatabase('parley_obsbench');
  const work = mkdtempSync(join(tmpdir(), 'parley-obsbench-'));
  // The OTLP sink: accepts every export, keeps nothing.
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  const otlp = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

  const variants: Record<string, Record<string, string>> = {
    plain: {},
    'metrics on': { METRICS_PORT: '0' },
    'tracing on': { OTEL_EXPORTER_OTLP_ENDPOINT: otlp, OTEL_SERVICE_NAME: 'parley-bench' },
  };
  const start = (name: string, i: number) => {
    const dataDir = join(work, `data-${name.replace(/\W/g, '')}-${i}`);
    mkdirSync(dataDir, { recursive: true });
    return ServerProcess.start({
      name,
      runtime,
      cwd: ROOT,
      script: APP_SCRIPT,
      env: {
        NODE_ENV: 'production',
        RATE_LIMITS: 'off',
        DATA_DIR: dataDir,
        DATABASE_URL: db.url,
        SECRET_KEY,
        SHUTDOWN_GRACE_MS: '0',
        LOG_LEVEL: 'info',
        ...variants[name],
      },
      logFile: join(work, `${name.replace(/\W/g, '')}.log`),
      readyPath: '/v1/health/ready',
    });
  };

  const results: Record<string, { discovery: number[]; me: number[]; startMs: number[] }> = {};
  for (const name of Object.keys(variants)) results[name] = { discovery: [], me: [], startMs: [] };
  try {
    // Migrations first, once, so that no start below pays for them.
    await (await start('plain', 99)).stop();
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of Object.keys(variants)) {
        const server = await start(name, round);
        try {
          results[name].startMs.push(server.startMs);
          const u = `u${round}${name.replace(/\W/g, '')}${Date.now().toString(36)}`.slice(0, 30);
          const res = await fetch(`${server.url}/v1/auth/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              consent: true,
              date_of_birth: '1990-01-01',
              email: `${u}@example.com`,
              password: 'correct-horse-battery',
              username: u,
            }),
          });
          const { token } = (await res.json()) as { token: string };
          await rate(`${server.url}/v1/.well-known/service`); // warm-up
          results[name].discovery.push(await rate(`${server.url}/v1/.well-known/service`));
          results[name].me.push(await rate(`${server.url}/v1/users/@me`, { authorization: token }));
          say(
            `round ${round + 1} ${name}: start ${Math.round(server.startMs)} ms, discovery ` +
              `${Math.round(results[name].discovery.at(-1)!)}, @me ${Math.round(results[name].me.at(-1)!)} req/s`,
          );
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    sink.close();
    rmSync(work, { recursive: true, force: true });
    await db.drop();
  }

  const plain = results.plain;
  const vs = (x: number, ref: number) => `${((x / ref - 1) * 100).toFixed(1)} %`;
  const rows = Object.entries(results).map(([name, r]) => {
    const d = median(r.discovery);
    const m = median(r.me);
    const s = median(r.startMs);
    return (
      `| ${runtime.label} | ${name} | ${Math.round(d).toLocaleString('en')} (${vs(d, median(plain.discovery))}) | ` +
      `${Math.round(m).toLocaleString('en')} (${vs(m, median(plain.me))}) | ${Math.round(s)} ms (${vs(s, median(plain.startMs))}) |`
    );
  });
  const report = [
    `Observability costs — ${new Date().toISOString()} — ${runtime.version}, median of ${ROUNDS} alternating rounds, autocannon -c 50, ${DURATION} s per row`,
    '',
    '| runtime | variant | discovery req/s (vs plain) | `@me` req/s (vs plain) | spawn → ready (vs plain) |',
    '|---|---|---:|---:|---:|',
    ...rows,
  ].join('\n');
  say('');
  say(report);
  mkdirSync(join(ROOT, 'bench', 'out'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'out', 'observability-latest.md'), report + '\n');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
