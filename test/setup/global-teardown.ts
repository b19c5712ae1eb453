import type { TestDatabase } from './database';

// Every project's global set-up runs before any suite and every teardown after all of them.
export default async function globalTeardown(): Promise<void> {
  const g = globalThis as { __parleyTestDbs?: TestDatabase[] };
  const dbs = g.__parleyTestDbs ?? [];
  g.__parleyTestDbs = [];
  await Promise.all(dbs.map((db) => db.drop()));
}
