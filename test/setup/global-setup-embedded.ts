import { createEmbeddedTestDatabase } from './database';

/** The embedded smoke suite always runs on PGlite, whatever TEST_DATABASE_URL says. */
export default async function globalSetup(): Promise<void> {
  const db = await createEmbeddedTestDatabase();
  process.env.PARLEY_TEST_DATABASE_URL = db.url;
  process.env.PARLEY_TEST_DATABASE_KIND = db.kind;
  const g = globalThis as { __parleyTestDbs?: Array<typeof db> };
  (g.__parleyTestDbs ??= []).push(db);
}
