import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The blob folder of every app on the test database `databaseUrl`. Apps started by the suites are
 * instances of one deployment (one database, one pg-boss queue): an archive job triggered on one
 * app may be built by another suite's app, so they share blob storage as instances must, while
 * each keeps its own DATA_DIR. The global set-up removes it after the run.
 */
export function testBlobDir(databaseUrl: string): string {
  const id = createHash('sha256').update(databaseUrl).digest('hex').slice(0, 16);
  return join(tmpdir(), `parley-test-blobs-${id}`);
}
