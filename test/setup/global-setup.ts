import { createEmbeddedTestDatabase, createPostgresTestDatabase } from './database';
import { startTestRedis } from './redis';
import { rm } from 'node:fs/promises';
import { testBlobDir } from '../helpers/blob-dir';
import { track } from './global-teardown';

/**
 * e2e suites: real PostgreSQL when TEST_DATABASE_URL is given, otherwise the embedded database;
 * Redis at TEST_REDIS_URL when given, otherwise a private redis-server started for the run.
 */
export default async function globalSetup(): Promise<void> {
  const base = process.env.TEST_DATABASE_URL;
  const [db, redis] = await Promise.all([
    base ? createPostgresTestDatabase(base) : createEmbeddedTestDatabase(),
    process.env.TEST_REDIS_URL ? null : startTestRedis(),
  ]);
  // Per project: the embedded project's set-up runs in the same process (env.ts picks).
  process.env.PARLEY_E2E_DATABASE_URL = db.url;
  process.env.PARLEY_E2E_DATABASE_KIND = db.kind;
  track(db.drop);
  const blobs = testBlobDir(db.url);
  track(() => rm(blobs, { recursive: true, force: true }));
  if (redis) {
    process.env.TEST_REDIS_URL = redis.url;
    track(redis.stop);
  }
  console.log(
    `\n[e2e] database: ${db.kind === 'postgres' ? 'PostgreSQL (TEST_DATABASE_URL)' : 'embedded PostgreSQL'}; ` +
      `Redis: ${redis ? `private redis-server at ${redis.url}` : 'TEST_REDIS_URL'}`,
  );
}
