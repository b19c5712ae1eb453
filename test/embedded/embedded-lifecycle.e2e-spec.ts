import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  binariesIn,
  binariesReachableBy,
  embeddedBinaries,
  serverUser,
  startEmbeddedPostgres,
  type EmbeddedPostgresHandle,
} from '../../src/database/embedded-postgres';

async function query<T>(url: string, sql: string): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows as T[];
  } finally {
    await c.end();
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The embedded PostgreSQL server's life cycle: data kept, password, stale pids, versions. */
describe('embedded PostgreSQL life cycle', () => {
  let root: string;
  const opts = () => ({
    dataDir: join(root, 'postgres'),
    passwordFile: join(root, 'postgres.password'),
  });
  const handles: EmbeddedPostgresHandle[] = [];

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'parley-embedded-life-'));
    chmodSync(root, 0o755);
  });
  afterAll(async () => {
    await Promise.all(handles.map((h) => h.stop()));
    rmSync(root, { recursive: true, force: true });
  });

  it('as root, copies the binaries where the user "postgres" can run them when their folder is closed to it', () => {
    const installed = embeddedBinaries();
    const owner = serverUser(undefined);
    if (!owner) {
      // Not root: the server runs as this user, who can run the installed binaries.
      expect(binariesReachableBy(installed, owner, undefined)).toBe(installed);
      return;
    }
    // An installation inside a folder only root may enter (a checkout under a mktemp -d folder).
    const closed = mkdtempSync(join(tmpdir(), 'parley-closed-'));
    const cache = mkdtempSync(join(tmpdir(), 'parley-bincache-'));
    chmodSync(cache, 0o755);
    try {
      cpSync(installed.native, join(closed, 'native'), { recursive: true, verbatimSymlinks: true });
      expect(statSync(closed).mode & 0o777).toBe(0o700);
      const unreachable = binariesIn(join(closed, 'native'), installed.version);
      const logs: string[] = [];
      const copied = binariesReachableBy(unreachable, owner, (_l, m) => logs.push(m), cache);
      expect(copied.postgres).toBe(
        join(cache, `parley-postgres-${installed.version}`, 'bin', 'postgres'),
      );
      expect(logs).toEqual([expect.stringContaining('copying the PostgreSQL binaries')]);
      expect(statSync(copied.native).uid).toBe(0);
      expect(statSync(copied.native).mode & 0o022).toBe(0);
      // The user "postgres" runs the copy (with its libraries) ...
      const version = execFileSync(copied.postgres, ['--version'], { ...owner, encoding: 'utf8' });
      expect(version).toMatch(new RegExp(`PostgreSQL\\) ${installed.major}\\.`));
      // ... and the next start reuses it without copying again.
      expect(binariesReachableBy(unreachable, owner, (_l, m) => logs.push(m), cache).postgres).toBe(
        copied.postgres,
      );
      expect(logs).toHaveLength(1);
      // Once "postgres" may enter the installation, its binaries are used where they are.
      chmodSync(closed, 0o755);
      expect(binariesReachableBy(unreachable, owner, undefined, cache)).toBe(unreachable);
    } finally {
      rmSync(closed, { recursive: true, force: true });
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('keeps data across restarts, with a password generated once and kept private', async () => {
    const first = await startEmbeddedPostgres(opts());
    await query(first.url, 'CREATE TABLE kept (v text); INSERT INTO kept VALUES ($$hello$$)');
    const password = readFileSync(opts().passwordFile, 'utf8').trim();
    expect(password).toMatch(/^[0-9a-f]{48}$/);
    expect(statSync(opts().passwordFile).mode & 0o777).toBe(0o600);
    expect(first.url).toContain(`:${password}@127.0.0.1:`);
    await first.stop();
    expect(isAlive(first.pid)).toBe(false);

    const second = await startEmbeddedPostgres(opts());
    handles.push(second);
    expect(await query(second.url, 'SELECT v FROM kept')).toEqual([{ v: 'hello' }]);
    // Only the generated password gets in.
    const wrong = new URL(second.url);
    wrong.password = 'nope';
    await expect(query(wrong.toString(), 'SELECT 1')).rejects.toThrow(/password/);
    const [version] = await query<{ server_version_num: string }>(
      second.url,
      'SHOW server_version_num',
    );
    expect(Math.floor(Number(version.server_version_num) / 10000)).toBe(embeddedBinaries().major);
    await second.stop();
    handles.pop();
  });

  it('shuts down a server that outlived its app (stale postmaster.pid) and starts again', async () => {
    const orphan = await startEmbeddedPostgres(opts());
    // Simulate a killed app: its server is still running and owns postmaster.pid.
    const next = await startEmbeddedPostgres(opts());
    handles.push(next);
    expect(isAlive(orphan.pid)).toBe(false);
    expect(await query(next.url, 'SELECT v FROM kept')).toEqual([{ v: 'hello' }]);
    await next.stop();
    handles.pop();
  });

  it('removes a postmaster.pid whose pid belongs to another process now', async () => {
    const pidFile = join(opts().dataDir, 'postmaster.pid');
    // This very test process is alive and is not a postgres server of that folder.
    writeFileSync(pidFile, `${process.pid}\n${opts().dataDir}\n0\n5432\n\n127.0.0.1\n0 0\nready\n`);
    const h = await startEmbeddedPostgres(opts());
    handles.push(h);
    expect(await query(h.url, 'SELECT v FROM kept')).toEqual([{ v: 'hello' }]);
    await h.stop();
    handles.pop();
  });

  it('refuses a data directory made by another PostgreSQL major version, naming both', async () => {
    const other = mkdtempSync(join(tmpdir(), 'parley-embedded-old-'));
    writeFileSync(join(other, 'PG_VERSION'), '14\n');
    await expect(
      startEmbeddedPostgres({ dataDir: other, passwordFile: join(root, 'postgres.password') }),
    ).rejects.toThrow(
      new RegExp(
        `PostgreSQL 14 cluster, but this build embeds PostgreSQL ${embeddedBinaries().major}`,
      ),
    );
    rmSync(other, { recursive: true, force: true });
  });

  it('as root, keeps the cluster of a DATA_DIR the server user cannot enter where it can, durably', async () => {
    const locked = mkdtempSync(join(tmpdir(), 'parley-embedded-locked-'));
    const home = mkdtempSync(join(tmpdir(), 'parley-cluster-home-'));
    chmodSync(home, 0o755);
    try {
      expect(statSync(locked).mode & 0o777).toBe(0o700);
      const logs: string[] = [];
      const start = () =>
        startEmbeddedPostgres({
          dataDir: join(locked, 'data', 'postgres'),
          passwordFile: join(locked, 'data', 'postgres.password'),
          clusterHome: home,
          log: (level, m) => logs.push(`${level} ${m}`),
        });
      const first = await start();
      await query(first.url, 'CREATE TABLE kept (v text); INSERT INTO kept VALUES ($$here$$)');
      await first.stop();
      const second = await start();
      try {
        expect(await query(second.url, 'SELECT v FROM kept')).toEqual([{ v: 'here' }]);
        expect(second.dataDir).toBe(first.dataDir);
        if (process.getuid?.() === 0) {
          // Outside the closed folder, owned by the server user, named after this DATA_DIR.
          expect(first.dataDir).toMatch(new RegExp(`^${home}/postgres-[0-9a-f]{16}$`));
          expect(statSync(first.dataDir).uid).toBe(serverUser(undefined)!.uid);
          expect(readFileSync(join(locked, 'data', 'postgres.location'), 'utf8').trim()).toBe(
            first.dataDir,
          );
          // Said once, with where and why.
          const said = logs.filter((l) => l.startsWith('warn') && l.includes(first.dataDir));
          expect(said).toHaveLength(1);
          expect(said[0]).toContain(`cannot enter ${locked}`);
        } else {
          expect(first.dataDir).toBe(join(locked, 'data', 'postgres'));
        }
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(locked, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    }
  });
});
