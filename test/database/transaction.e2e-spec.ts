import { DataSource, type EntityManager } from 'typeorm';
import { inOpenTransaction, inTransaction } from '../../src/database/transaction';
import { unique } from '../helpers/app';

/** inTransaction on real PostgreSQL: joins an open transaction, otherwise opens (and commits) one. */
describe('inTransaction', () => {
  let ds: DataSource;
  const schema = unique('tx_spec_');
  const table = `${schema}.rows`;

  const insert = (m: EntityManager, v: string) =>
    m.query(`INSERT INTO ${table} (v) VALUES ($1)`, [v]);
  const committed = async (v: string) =>
    (await ds.query<unknown[]>(`SELECT 1 FROM ${table} WHERE v = $1`, [v])).length > 0;

  beforeAll(async () => {
    const url = process.env.PARLEY_TEST_DATABASE_URL;
    if (!url)
      throw new Error('PARLEY_TEST_DATABASE_URL is not set: run the e2e suites through jest');
    ds = new DataSource({ type: 'postgres', url, poolSize: 4 });
    await ds.initialize();
    await ds.query(`CREATE SCHEMA ${schema}`);
    await ds.query(`CREATE TABLE ${table} (v text NOT NULL)`);
  });
  afterAll(async () => {
    await ds.query(`DROP SCHEMA ${schema} CASCADE`);
    await ds.destroy();
  });

  it('opens a transaction without a manager: committed on success, rolled back on error', async () => {
    const ok = unique('ok');
    const seen = await inTransaction(ds, undefined, async (m) => {
      expect(inOpenTransaction(m)).toBe(true);
      await insert(m, ok);
      return 'result';
    });
    expect(seen).toBe('result');
    expect(await committed(ok)).toBe(true);

    const failed = unique('failed');
    await expect(
      inTransaction(ds, undefined, async (m) => {
        await insert(m, failed);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await committed(failed)).toBe(false);
  });

  it('opens a transaction when the manager given has none open', async () => {
    expect(inOpenTransaction(ds.manager)).toBe(false);
    const failed = unique('failed');
    await expect(
      inTransaction(ds, ds.manager, async (m) => {
        expect(m).not.toBe(ds.manager);
        await insert(m, failed);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await committed(failed)).toBe(false);
  });

  it('joins the caller’s transaction: its writes commit and roll back with the caller’s', async () => {
    const inner = unique('inner');
    await expect(
      ds.transaction(async (outer) => {
        await inTransaction(ds, outer, async (m) => {
          expect(m).toBe(outer);
          await insert(m, inner);
        });
        // Joined, not committed on its own: nothing is visible outside yet.
        expect(await committed(inner)).toBe(false);
        throw new Error('caller fails later');
      }),
    ).rejects.toThrow('caller fails later');
    expect(await committed(inner)).toBe(false);

    const both = [unique('outer'), unique('inner')];
    await ds.transaction(async (outer) => {
      await insert(outer, both[0]);
      await inTransaction(ds, outer, (m) => insert(m, both[1]));
    });
    expect([await committed(both[0]), await committed(both[1])]).toEqual([true, true]);
  });

  it('a joined failure rolls back what the caller wrote before', async () => {
    const before = unique('before');
    await expect(
      ds.transaction(async (outer) => {
        await insert(outer, before);
        await inTransaction(ds, outer, async () => {
          throw new Error('inner fails');
        });
      }),
    ).rejects.toThrow('inner fails');
    expect(await committed(before)).toBe(false);
  });
});
