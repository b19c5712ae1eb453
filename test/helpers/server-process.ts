import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testHttpAdapter } from './adapter';
import { nextWorkerId } from './app';
import { send } from './http-client';

const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'src', 'main.js');

/** One pino line of the server's stdout (or a plain line, kept as `msg`). */
export interface LogLine {
  level: number;
  msg?: string;
  context?: string;
  [key: string]: unknown;
}

export const LEVEL = { info: 30, warn: 40, error: 50 } as const;

function newestMtime(dir: string, accept: (file: string) => boolean): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path, accept));
    else if (accept(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * The process tests run the production build (`node dist/src/main.js`), as deployed. CI runs
 * `npm run build` before `npm test`, so dist is fresh there; locally, a missing or stale build
 * (older than a source file) is rebuilt here once (~10 s).
 */
export function ensureProductionBuild(): void {
  const built = existsSync(MAIN) ? statSync(MAIN).mtimeMs : 0;
  const ts = (f: string) => f.endsWith('.ts') && !f.endsWith('.spec.ts');
  const sources = Math.max(
    newestMtime(join(ROOT, 'src'), ts),
    newestMtime(join(ROOT, 'migrations'), ts),
  );
  if (built >= sources) return;
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', '@nestjs', 'cli', 'bin', 'nest.js'), 'build'],
    {
      cwd: ROOT,
      stdio: 'pipe',
      timeout: 180_000,
    },
  );
}

/**
 * `node dist/src/main.js` in a process of its own, with exactly the environment given (plus
 * PATH/HOME), in an empty working directory (no `.env` is read). Its pino lines are parsed.
 */
export class ServerProcess {
  readonly lines: LogLine[] = [];
  stderr = '';
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private waiters: Array<() => void> = [];

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {
    let partial = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const raw of parts) {
        if (!raw.trim()) continue;
        try {
          this.lines.push(JSON.parse(raw) as LogLine);
        } catch {
          this.lines.push({ level: 0, msg: raw });
        }
      }
      this.notify();
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((done) =>
      child.once('exit', (code, signal) => {
        done({ code, signal });
        this.notify();
      }),
    );
  }

  /** `nodeFlags`: what production starts Node with (src/node-flags.ts), for tests that measure memory. */
  static start(
    env: Record<string, string>,
    port: number,
    nodeFlags: readonly string[] = [],
  ): ServerProcess {
    const child = spawn(process.execPath, [...nodeFlags, MAIN], {
      cwd: mkdtempSync(join(tmpdir(), 'parley-proc-cwd-')),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        PORT: String(port),
        HTTP_ADAPTER: testHttpAdapter(),
        // A snowflake worker of its own, like every app of the suites (test/helpers/app.ts).
        WORKER_ID: nextWorkerId(),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ServerProcess(child, port);
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves with the first line matching, rejecting after `timeoutMs` or if the process exits. */
  async waitForLine(match: (line: LogLine) => boolean, timeoutMs: number): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.lines.find(match);
      if (line) return line;
      if (!this.alive)
        throw new Error(`process exited before the line appeared; ${this.describe()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for a log line; ${this.describe()}`);
      await new Promise<void>((done) => {
        const timer = setTimeout(done, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          done();
        });
      });
    }
  }

  /** Polls GET /v1/health/ready until it answers 200. */
  async waitUntilReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.alive) throw new Error(`process exited while starting; ${this.describe()}`);
      const res = await send({ port: this.port, path: '/v1/health/ready', timeoutMs: 3_000 }).catch(
        () => null,
      );
      if (res?.status === 200) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`not ready after ${timeoutMs} ms; ${this.describe()}`);
  }

  async waitForExit(
    timeoutMs: number,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`still running after ${timeoutMs} ms; ${this.describe()}`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Cleanup: SIGKILL if still running. */
  async stop(): Promise<void> {
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }

  describe(): string {
    const tail = this.lines
      .slice(-15)
      .map((l) => `  ${l.level} ${l.context ?? ''} ${l.msg ?? ''}`)
      .join('\n');
    return `last log lines:\n${tail}\nstderr: ${this.stderr.slice(-2000)}`;
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** Runs the operator CLI of the production build (`node dist/src/cli.js …`); resolves with its output. */
export function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'src', 'cli.js'), ...args], {
      cwd: mkdtempSync(join(tmpdir(), 'parley-cli-cwd-')),
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The last non-empty line of a command's output. */
export const lastLine = (text: string): string => text.trim().split('\n').pop() ?? '';
