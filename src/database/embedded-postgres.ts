import { ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface EmbeddedPostgresHandle {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

const SERVER_SCRIPT = join(__dirname, 'embedded', 'pglite-server.mjs');

/**
 * Starts the embedded PostgreSQL (PGlite) in a child process serving the wire protocol on a
 * loopback port. `dataDir` is a folder (kept between runs) or `memory://`.
 */
export function startEmbeddedPostgres(
  dataDir: string,
  options: { port?: number; timeoutMs?: number } = {},
): Promise<EmbeddedPostgresHandle> {
  if (!existsSync(SERVER_SCRIPT))
    throw new Error(`embedded database server missing at ${SERVER_SCRIPT}`);
  const child: ChildProcess = fork(SERVER_SCRIPT, [], {
    env: { ...process.env, PGLITE_DATA_DIR: dataDir, PGLITE_PORT: String(options.port ?? 0) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('embedded database did not start in time'));
    }, options.timeoutMs ?? 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`embedded database exited with code ${code}`));
    });
    child.on('message', (msg: { type: string; port?: number; message?: string }) => {
      if (msg.type === 'error') {
        clearTimeout(timer);
        reject(new Error(`embedded database failed: ${msg.message}`));
      }
      if (msg.type !== 'ready' || !msg.port) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      const port = msg.port;
      resolve({
        url: `postgres://postgres@127.0.0.1:${port}/postgres`,
        port,
        pid: child.pid ?? -1,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
          }),
      });
    });
  });
}
