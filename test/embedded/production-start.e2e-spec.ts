import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { send } from '../helpers/http-client';
import { serverPort } from '../helpers/ports';
import { ensureProductionBuild, ServerProcess } from '../helpers/server-process';

/**
 * `npm start` as a newcomer runs it: the production build on the embedded database, with nothing
 * configured but DATA_DIR — here under a folder only its owner may enter (a clone under /root, or
 * under `mktemp -d`). As root the embedded server runs as "postgres", which cannot enter it.
 */
describe('production start on the embedded database', () => {
  const cleanup: string[] = [];

  beforeAll(() => ensureProductionBuild(), 240_000);
  afterAll(() => {
    for (const path of cleanup) rmSync(path, { recursive: true, force: true });
  });

  const start = async (dataDir: string): Promise<ServerProcess> => {
    const port = await serverPort();
    return ServerProcess.start({ DATA_DIR: dataDir, LOG_LEVEL: 'info' }, port);
  };

  it('serves discovery with DATA_DIR under a 0700 folder, and keeps its data across a restart', async () => {
    const locked = mkdtempSync(join(tmpdir(), 'parley-start-locked-'));
    cleanup.push(locked);
    chmodSync(locked, 0o700);
    const dataDir = join(locked, 'data');
    const account = {
      consent: true,
      date_of_birth: '1990-01-01',
      email: 'kept@example.com',
      password: 'correct-horse-battery',
      username: 'kept_user',
    };

    const first = await start(dataDir);
    try {
      await first.waitUntilReady(90_000);
      const discovery = await send({ port: first.port, path: '/v1/.well-known/service' });
      expect(discovery.status).toBe(200);
      const registered = await send({
        port: first.port,
        method: 'POST',
        path: '/v1/auth/register',
        body: account,
      });
      expect(registered.status).toBe(200);
      first.kill('SIGTERM');
      expect(await first.waitForExit(30_000)).toEqual({ code: 0, signal: null });
    } finally {
      await first.stop();
    }
    const marker = join(dataDir, 'postgres.location');
    if (process.getuid?.() === 0) {
      // The cluster lives where "postgres" can reach it; the marker ties it to this DATA_DIR.
      const cluster = readFileSync(marker, 'utf8').trim();
      cleanup.push(cluster);
      expect(existsSync(join(cluster, 'PG_VERSION'))).toBe(true);
      const output = first.lines.map((l) => l.msg ?? '').join('\n') + first.stderr;
      const said = output.split('\n').filter((l) => l.includes(`cannot enter ${locked}`));
      expect(said).toHaveLength(1);
      expect(said[0]).toContain(cluster);
    } else {
      expect(existsSync(join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    }

    const second = await start(dataDir);
    try {
      await second.waitUntilReady(90_000);
      const login = await send({
        port: second.port,
        method: 'POST',
        path: '/v1/auth/login',
        body: { email: account.email, password: account.password },
      });
      expect(login.status).toBe(200);
      expect(typeof login.json.token).toBe('string');
    } finally {
      await second.stop();
    }
  }, 240_000);

  it('prints a failed embedded start once and exits 1, with no module initialisation after it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-start-bad-'));
    cleanup.push(dir);
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, 'postgres'));
    writeFileSync(join(dir, 'postgres', 'stray'), 'not a cluster');

    const proc = await start(dir);
    expect(await proc.waitForExit(60_000)).toEqual({ code: 1, signal: null });
    const message = `${join(dir, 'postgres')} is not empty and holds no PostgreSQL cluster`;
    expect(proc.stderr.split(message)).toHaveLength(2);
    expect(proc.stderr).toContain('the embedded PostgreSQL did not start');
    expect(proc.lines.filter((l) => l.context === 'InstanceLoader')).toEqual([]);
    expect(proc.lines.filter((l) => JSON.stringify(l).includes(message))).toEqual([]);
  }, 90_000);
});
