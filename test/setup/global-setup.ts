import { createEmbeddedTestDatabase, createPostgresTestDatabase } from './database';

/** e2e suites: real PostgreSQL when TEST_DATABASE_URL is given, otherwise the embedded database. */
export default async function globalSetup(): Promise<void> {
  const base = process.env.TEST_DATABASE_URL;
  const db = base ? await createPostgresTestDatabase(base) : await createEmbeddedTestDatabase();
  process.env.PARLEY_TEST_DATABASE_URL = db.url;
  process.env.PARLEY_TEST_DATABASE_KIND = db.kind;
  const g = globalThis as { __parleyTestDbs?: Array<typeof db> };
  (g.__parleyTestDbs ??= []).push(db);
  console.log(
    `\n[e2e] database: ${db.kind === 'postgres' ? 'PostgreSQL (TEST_DATABASE_URL)' : 'embedded PGlite'}`,
  );
}
