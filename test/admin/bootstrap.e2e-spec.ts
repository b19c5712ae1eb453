import type { ParleyApp } from '../../src/app.setup';
import { DataSource } from 'typeorm';
import { createTestApp, http } from '../helpers/app';
import { registerUser } from '../helpers/factories';
import { ensureProductionBuild, lastLine, runCli } from '../helpers/server-process';

/** `npm run admin:bootstrap -- --email <email>` against PostgreSQL (DATABASE_URL). */
describe('admin bootstrap on PostgreSQL', () => {
  let app: ParleyApp;
  const env = () => ({ DATABASE_URL: process.env.PARLEY_TEST_DATABASE_URL!, LOG_LEVEL: 'warn' });

  beforeAll(async () => {
    ensureProductionBuild();
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('promotes an existing user to ACL * and prints a working key as the last line', async () => {
    const user = await registerUser(app);
    const run = await runCli(['admin:bootstrap', '--email', user.email.toUpperCase()], env());
    expect(run.code).toBe(0);
    const key = lastLine(run.stdout);
    expect(key).toMatch(/^adm_\d+_[A-Za-z0-9_-]{43}$/);
    expect(run.stdout).toContain(`promoted user ${user.userId}`);

    const [row] = await app
      .get(DataSource)
      .query('SELECT acls FROM users WHERE id = $1', [user.userId]);
    expect(row.acls).toEqual(['*']);
    const list = await http(app).get('/v1/admin/api-keys').set('Authorization', `Admin ${key}`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([expect.objectContaining({ name: 'bootstrap', acls: ['*'] })]);

    const audit = await app
      .get(DataSource)
      .query(
        `SELECT actor_type FROM audit_log_entries WHERE action = 'admin.bootstrap' AND target_id = $1`,
        [user.userId],
      );
    expect(audit).toEqual([{ actor_type: 'system' }]);
  });

  it('creates the user when nobody has that e-mail (no password: they reset it)', async () => {
    const email = `boot-${Date.now()}@example.com`;
    const run = await runCli(['admin:bootstrap', '--email', email], env());
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/created user \d+/);
    const [row] = await app
      .get(DataSource)
      .query('SELECT acls, password_hash FROM users WHERE email = $1', [email]);
    expect(row).toEqual({ acls: ['*'], password_hash: null });
  });

  it('prints usage without --email', async () => {
    const run = await runCli(['admin:bootstrap'], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('usage: npm run admin:bootstrap -- --email <email>');
  });
});
