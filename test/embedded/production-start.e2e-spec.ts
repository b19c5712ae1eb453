import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { send } from '../helpers/http-client';
import { serverPort } from '../helpers/ports';
import { ensureProductionBuild, type LogLine, ServerProcess } from '../helpers/server-process';

const FATAL = 60;
const FAILED = 'the embedded PostgreSQL did not start: ';
/** Lines of stdout that are not JSON (ServerProcess keeps them as `msg`, level 0). */
const plain = (proc: ServerProcess): string[] =>
  proc.lines.filter((l) => l.level === 0).map((l) => l.msg ?? '');
/** Nest's start-up chatter: a line per module, controller and route. */
const chatter = (l: LogLine): boolean =>
  ['InstanceLoader', 'RoutesResolver', 'RouterExplorer'].includes(l.context ?? '') ||
  /^Mapped \{|\{\/.*\}:? route|dependencies initialized/.test(l.msg ?? '');

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

  const start = async (
    dataDir: string,
    env: Record<string, string> = {},
  ): Promise<ServerProcess> => {
    const port = await serverPort();
    return ServerProcess.start({ DATA_DIR: dataDir, ...env }, port);
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
    // One logger from the first line, at the default level: stdout piped, every line is pino's
    // JSON — the embedded start's too — and Nest's ~200 start-up lines are left at debug.
    expect(plain(first)).toEqual([]);
    expect(first.lines.filter(chatter)).toEqual([]);
    expect(first.lines).toContainEqual(
      expect.objectContaining({
        level: 30,
        context: 'Database',
        msg: expect.stringMatching(/^embedded PostgreSQL in .* on 127\.0\.0\.1:\d+, pid \d+$/),
      }),
    );
    expect(first.lines).toContainEqual(
      expect.objectContaining({ msg: 'request', method: 'POST', url: '/v1/auth/register' }),
    );

    // The restart asks for human-readable lines (what a terminal gets outside production).
    const second = await start(dataDir, { LOG_FORMAT: 'pretty' });
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
      await second.waitForLine((l) => /POST \/v1\/auth\/login 200 /.test(l.msg ?? ''), 5_000);
    } finally {
      await second.stop();
    }
    const pretty = plain(second);
    expect(pretty).toHaveLength(second.lines.length);
    expect(pretty).toContainEqual(
      expect.stringMatching(
        /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \[Database\] embedded PostgreSQL in /,
      ),
    );
    expect(pretty).toContainEqual(
      expect.stringMatching(/^\[[\d:.]+\] INFO: \[Parley\] listening on http:\/\/localhost:/),
    );
    expect(pretty).toContainEqual(
      expect.stringMatching(/^\[[\d:.]+\] INFO: POST \/v1\/auth\/login 200 [\d.]+ ms \{"reqId":"/),
    );
    expect(pretty.filter((l) => /Mapped \{|dependencies initialized/.test(l))).toEqual([]);
  }, 240_000);

  it('prints a failed embedded start once and exits 1, with no module initialisation after it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-start-bad-'));
    cleanup.push(dir);
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, 'postgres'));
    writeFileSync(join(dir, 'postgres', 'stray'), 'not a cluster');
    const message = `${join(dir, 'postgres')} is not empty and holds no PostgreSQL cluster`;

    const proc = await start(dir, { LOG_LEVEL: 'debug' });
    expect(await proc.waitForExit(60_000)).toEqual({ code: 1, signal: null });
    // One JSON line, even at debug: the reason, after the fixed words.
    expect(plain(proc)).toEqual([]);
    expect(proc.lines.filter((l) => JSON.stringify(l).includes(message))).toEqual([
      expect.objectContaining({ level: FATAL, context: 'Database', msg: FAILED + message }),
    ]);
    expect(proc.stderr).not.toContain(message);
    expect(proc.lines.filter((l) => l.context === 'InstanceLoader')).toEqual([]);

    // The same in pino-pretty's lines (written before the exit too).
    const pretty = await start(dir, { LOG_FORMAT: 'pretty' });
    expect(await pretty.waitForExit(60_000)).toEqual({ code: 1, signal: null });
    expect(plain(pretty).filter((l) => l.includes(message))).toEqual([
      expect.stringMatching(
        /^\[[\d:.]+\] FATAL: \[Database\] the embedded PostgreSQL did not start: /,
      ),
    ]);
  }, 90_000);

  it("states PostgreSQL's own reason once when its server exits during the start", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-start-port-'));
    cleanup.push(dir);
    chmodSync(dir, 0o755);
    // The loopback port the embedded server is told to use is taken.
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    const { port } = taken.address() as { port: number };
    try {
      const proc = await start(dir, { EMBEDDED_DB_PORT: String(port) });
      expect(await proc.waitForExit(60_000)).toEqual({ code: 1, signal: null });
      expect(plain(proc)).toEqual([]);
      const said = proc.lines.filter((l) =>
        /could not create any TCP\/IP sockets/.test(l.msg ?? ''),
      );
      expect(said).toEqual([expect.objectContaining({ level: FATAL, context: 'Database' })]);
      expect(said[0].msg).toMatch(new RegExp(`^${FAILED}postgres exited before it was ready: `));
      expect(said[0].msg).toContain('Address already in use');
      expect(proc.stderr).not.toContain('FATAL');
    } finally {
      await new Promise((done) => taken.close(done));
    }
  }, 90_000);
});
