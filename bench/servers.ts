/**
 * The servers under test, each a separate process started the way production starts it:
 * `node dist/src/main.js` (or the bare Express baseline, `node dist/bench/bare-express.js`) with
 * its environment set here, stdout and stderr to a log file (the per-request log line is written,
 * as in production, but not to this console).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { cpuSeconds, descendants, isAlive } from './proc';
import { NODE_FLAGS } from '../src/node-flags';
import type { Runtime } from './runtimes';
import { freePort } from '../src/common/http/free-port';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * The environment a server gets: nothing inherited from the bench's shell but PATH, HOME, the
 * temp dir and locale (a DATABASE_URL or NODE_OPTIONS there must not leak in), then `env`, then
 * BENCH_SERVER_ENV ("KEY=value,KEY=value") for experiments.
 */
function serverEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ']) {
    if (process.env[k] !== undefined) out[k] = process.env[k];
  }
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  for (const pair of (process.env.BENCH_SERVER_ENV ?? '').split(',')) {
    const i = pair.indexOf('=');
    if (i > 0) out[pair.slice(0, i).trim()] = pair.slice(i + 1);
  }
  return out;
}

/** The app's entry point, relative to its folder. */
export const APP_SCRIPT = 'dist/src/main.js';

function appFlags(): readonly string[] {
  const given = process.env.BENCH_APP_FLAGS;
  return given === undefined ? NODE_FLAGS : given.split(' ').filter(Boolean);
}

export interface ServerOptions {
  name: string;
  runtime: Runtime;
  /** Folder holding dist/ and node_modules (runtimes.appDir). */
  cwd: string;
  /** Script relative to cwd, e.g. dist/src/main.js. */
  script: string;
  env: Record<string, string | undefined>;
  /** Where stdout and stderr go. */
  logFile: string;
  /** Path answered with 200 once the server is ready, e.g. /v1/health/ready. */
  readyPath: string;
  /** Node options before the script (e.g. --require for the SQL counter). */
  execArgv?: string[];
  /** Open an IPC channel to the child. */
  ipc?: boolean;
  timeoutMs?: number;
}

export class ServerProcess {
  /** Milliseconds from spawn to the first 200 on readyPath. */
  startMs = 0;
  private exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  private constructor(
    readonly options: ServerOptions,
    readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.once('exit', (code, signal) => (this.exited = { code, signal }));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Why the server is not running, or undefined while it runs. */
  get exitReason(): string | undefined {
    if (!this.exited) return undefined;
    return `${this.options.name} exited (code ${this.exited.code}, signal ${this.exited.signal}); log tail:\n${this.logTail()}`;
  }

  logTail(bytes = 3000): string {
    try {
      const size = statSync(this.options.logFile).size;
      const text = readFileSync(this.options.logFile, 'utf8');
      return (size > bytes ? '…' : '') + text.slice(-bytes);
    } catch {
      return '(no log)';
    }
  }

  static async start(options: ServerOptions): Promise<ServerProcess> {
    const port = await freePort();
    const out = openSync(options.logFile, 'a');
    const t0 = performance.now();
    // The app starts as production starts it (src/node-flags.ts; BENCH_APP_FLAGS to measure
    // others, e.g. "" for a build from before them); baselines with Node's defaults.
    const flags = options.script === APP_SCRIPT ? appFlags() : [];
    const child = spawn(
      options.runtime.node,
      [...flags, ...(options.execArgv ?? []), options.script],
      {
        cwd: options.cwd,
        env: serverEnv({ ...options.env, PORT: String(port) }),
        stdio: ['ignore', out, out, ...(options.ipc ? (['ipc'] as const) : [])],
      },
    );
    closeSync(out);
    const server = new ServerProcess(options, child, `http://127.0.0.1:${port}`);
    try {
      await server.waitFor200(options.readyPath, options.timeoutMs ?? 90_000);
    } catch (e) {
      await server.stop();
      throw e;
    }
    server.startMs = performance.now() - t0;
    return server;
  }

  /** Polls `path` until it answers 200 (connection refused while the app boots). */
  private async waitFor200(path: string, timeoutMs: number): Promise<void> {
    const until = performance.now() + timeoutMs;
    let last = 'no answer';
    while (performance.now() < until) {
      if (this.exitReason) throw new Error(this.exitReason);
      try {
        const res = await fetch(this.url + path, { signal: AbortSignal.timeout(2000) });
        await res.arrayBuffer();
        if (res.status === 200) return;
        last = `status ${res.status}`;
      } catch (e) {
        last = (e as Error).message;
      }
      await sleep(10);
    }
    throw new Error(
      `${this.options.name} not ready on ${path} after ${timeoutMs} ms (${last}); log tail:\n${this.logTail()}`,
    );
  }

  /** CPU seconds the server process has used (all threads). */
  cpu(): number {
    return cpuSeconds(this.pid) ?? 0;
  }

  /**
   * Waits until the server has been idle (≤ 5 % of a core over two 200 ms windows in a row):
   * autocannon stops with requests in flight, and the server keeps working on them after their
   * sockets close (a queue of logins waiting for argon2 keeps it busy until it is empty).
   */
  async quiet(timeoutMs = 20_000): Promise<void> {
    const until = performance.now() + timeoutMs;
    let calm = 0;
    let before = this.cpu();
    while (calm < 2 && performance.now() < until && !this.exited) {
      await sleep(200);
      const now = this.cpu();
      calm = now - before <= 0.011 ? calm + 1 : 0;
      before = now;
    }
  }

  /**
   * SIGTERM, as an orchestrator stops it; SIGKILL after 15 s. Then any descendant that outlived
   * it (an embedded database) is stopped too — only processes below this child.
   */
  async stop(): Promise<{ exitMs: number }> {
    const t0 = performance.now();
    const below = this.pid > 0 ? descendants(this.pid) : [];
    if (!this.exited) {
      const gone = new Promise<void>((done) => this.child.once('exit', () => done()));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
      await gone;
      clearTimeout(timer);
    }
    const exitMs = performance.now() - t0;
    for (let i = 0; i < 100 && below.some(isAlive); i++) await sleep(50);
    for (const pid of below.filter(isAlive)) process.kill(pid, 'SIGKILL');
    return { exitMs };
  }
}
