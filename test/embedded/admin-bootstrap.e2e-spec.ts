import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverPort } from '../helpers/ports';
import { send } from '../helpers/http-client';
import { ensureProductionBuild, lastLine, runCli, ServerProcess } from '../helpers/server-process';

const KEY = /^adm_\d+_[A-Za-z0-9_-]{43}$/;

/** `npm run admin:bootstrap` on the embedded default: a fresh DATA_DIR, then next to a running server. */
describe('admin bootstrap on the embedded database', () => {
  let dataDir: string;
  let server: ServerProcess | undefined;

  beforeAll(() => {
    ensureProductionBuild();
    dataDir = mkdtempSync(join(tmpdir(), 'parley-bootstrap-'));
    chmodSync(dataDir, 0o755);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates the first admin on a fresh DATA_DIR, and a running server accepts the key', async () => {
    const first = await runCli(['admin:bootstrap', '--email', 'First.Admin@example.com'], {
      DATA_DIR: dataDir,
    });
    expect(first.code).toBe(0);
    const key = lastLine(first.stdout);
    expect(key).toMatch(KEY);

    server = ServerProcess.start({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, await serverPort());
    await server.waitUntilReady(60_000);
    const list = await send({
      port: server.port,
      path: '/v1/admin/api-keys',
      headers: { authorization: `Admin ${key}` },
    });
    expect(list.status).toBe(200);
    expect(list.json).toEqual([
      expect.objectContaining({ key_id: key.split('_')[1], name: 'bootstrap', acls: ['*'] }),
    ]);
  });

  it('runs next to that server on the same database without stopping it', async () => {
    const second = await runCli(['admin:bootstrap', '--email', 'second@example.com'], {
      DATA_DIR: dataDir,
    });
    expect(second.code).toBe(0);
    const key = lastLine(second.stdout);
    expect(key).toMatch(KEY);
    expect(server!.alive).toBe(true);
    const list = await send({
      port: server!.port,
      path: '/v1/admin/api-keys',
      headers: { authorization: `Admin ${key}` },
    });
    expect(list.status).toBe(200);
    expect((await send({ port: server!.port, path: '/v1/health/ready' })).status).toBe(200);
  });

  it('refuses a bad e-mail without printing a key', async () => {
    const bad = await runCli(['admin:bootstrap', '--email', 'not-an-email'], { DATA_DIR: dataDir });
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).not.toMatch(/adm_/);
    expect(bad.stderr).toContain('not an e-mail address');
  });
});
