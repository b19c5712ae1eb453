/**
 * Embedded-database figures (BENCH_ONLY=embedded, `npm run bench:embedded`): Parley with no
 * DATABASE_URL and a fresh DATA_DIR, started as production starts it, so the app creates and runs
 * its own database server (whatever processes that takes: they are found as descendants of the
 * app's pid, not by name).
 *   - first start: spawn → first 200 of /v1/.well-known/service (includes initdb and migrations);
 *   - SIGTERM → exit of the app and of every process below it;
 *   - restart on the same DATA_DIR → first 200;
 *   - idle memory 3 s after each start: PSS of the app and PSS summed over its descendants
 *     (RSS would count PostgreSQL's shared memory once per backend).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { treeMemory, TreeMemory } from './proc';
import type { Runtime } from './runtimes';
import { APP_SCRIPT, ServerProcess } from './servers';

export interface EmbeddedFigures {
  ok: boolean;
  firstStartMs?: number;
  firstStopMs?: number;
  restartMs?: number;
  /** Idle memory 3 s after the first start and after the restart. */
  idleFirst?: TreeMemory;
  idleRestart?: TreeMemory;
  note?: string;
}

const IDLE_MS = 3000;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export async function embeddedFigures(
  runtime: Runtime,
  cwd: string,
  workDir: string,
  name: string,
): Promise<EmbeddedFigures> {
  const dataDir = join(workDir, `${name}-data`);
  // Traversable by the OS user `postgres`, which the database runs as when the app runs as root.
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  const start = () =>
    ServerProcess.start({
      name,
      runtime,
      cwd,
      script: APP_SCRIPT,
      // Nothing else: no DATABASE_URL, no SECRET_KEY (generated into DATA_DIR on first start),
      // rate limits and log level at their production defaults.
      env: { NODE_ENV: 'production', DATA_DIR: dataDir, SHUTDOWN_GRACE_MS: '0' },
      logFile: join(workDir, 'logs', `${name}.log`),
      readyPath: '/v1/.well-known/service',
      timeoutMs: 180_000,
    });
  const out: EmbeddedFigures = { ok: false };
  let server: ServerProcess | undefined;
  try {
    process.stderr.write(`bench: embedded database, first start (${runtime.label})…\n`);
    server = await start();
    out.firstStartMs = server.startMs;
    await sleep(IDLE_MS);
    out.idleFirst = treeMemory(server.pid);
    out.firstStopMs = (await server.stop()).exitMs;
    server = undefined;
    process.stderr.write(`bench: embedded database, restart (${runtime.label})…\n`);
    server = await start();
    out.restartMs = server.startMs;
    await sleep(IDLE_MS);
    out.idleRestart = treeMemory(server.pid);
    out.ok = true;
  } catch (e) {
    out.note = `failed: ${(e as Error).message}`;
    process.stderr.write(`bench: embedded figures failed: ${(e as Error).message}\n`);
  } finally {
    await server?.stop();
  }
  return out;
}
