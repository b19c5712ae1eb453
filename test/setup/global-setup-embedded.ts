import { createEmbeddedTestDatabase } from './database';
import { rm } from 'node:fs/promises';
import { testBlobDir } from '../helpers/blob-dir';
import { track } from './global-teardown';

/** The embedded smoke suite always runs on the embedded PostgreSQL, whatever TEST_DATABASE_URL says. */
export default async function globalSetup(): Promise<void> {
  const db = await createEmbeddedTestDatabase();
  // Per project: the e2e project's set-up runs in the same process (env-embedded.ts picks).
  process.env.PARLEY_EMBEDDED_DATABASE_URL = db.url;
  process.env.PARLEY_EMBEDDED_DATABASE_KIND = db.kind;
  track(db.drop);
  const blobs = testBlobDir(db.url);
  track(() => rm(blobs, { recursive: true, force: true }));
}
