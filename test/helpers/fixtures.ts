import type { DataSource } from 'typeorm';

/**
 * Writes a test's fixture rows straight into the database, in a transaction marked as a fixture
 * (`parley.fixture`): the check that every change is announced (test/setup/write-audit.ts)
 * skips it. For state a test needs that no route makes (yet); everything else goes through the
 * API, whose writes must announce themselves.
 */
export async function fixtureQuery<T = unknown>(
  db: DataSource,
  sql: string,
  params: unknown[] = [],
): Promise<T> {
  return db.transaction(async (m) => {
    await m.query(`SET LOCAL parley.fixture = 'on'`);
    return m.query<T>(sql, params);
  });
}
