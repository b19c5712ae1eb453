import { spawn, type ChildProcess } from 'node:child_process';
import Redis from 'ioredis';
import { serverPort } from '../helpers/ports';

export interface TestRedis {
  url: string;
  stop(): Promise<void>;
}

/**
 * A private Redis server for the Redis-backed tests when TEST_REDIS_URL is not given: the
 * `redis-server` binary (PATH, or REDIS_SERVER_BIN) on a free loopback port, nothing on disk.
 */
export async function startTestRedis(): Promise<TestRedis> {
  const bin = process.env.REDIS_SERVER_BIN ?? 'redis-server';
  const port = await serverPort();
  const child: ChildProcess = spawn(
    bin,
    ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (e) =>
      reject(
        new Error(
          `the Redis-backed tests need a Redis server: set TEST_REDIS_URL, or install redis-server ` +
            `(Debian: apt-get install redis-server) so the tests can start one (${e.message})`,
        ),
      ),
    );
    child.once('exit', (code) => reject(new Error(`redis-server exited with code ${code}`)));
  });
  const url = `redis://127.0.0.1:${port}`;
  const ready = (async () => {
    for (let i = 0; i < 200; i++) {
      const client = new Redis(url, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      try {
        await client.connect();
        if ((await client.ping()) === 'PONG') return;
      } catch {
        await new Promise((r) => setTimeout(r, 25));
      } finally {
        client.disconnect();
      }
    }
    throw new Error(`redis-server on port ${port} did not answer`);
  })();
  await Promise.race([ready, failed]);
  child.removeAllListeners('exit');
  return {
    url,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}
