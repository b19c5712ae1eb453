/**
 * The S3 store of the attachments bench (bench/attachments.ts): s3rver — the S3 server the e2e
 * tests use (test/helpers/s3-server.ts) — in its own process on `PORT` (127.0.0.1), with one
 * bucket (S3_BUCKET, default `bench`) kept in S3_DIR, so that neither the load generator nor
 * the servers under test share an event loop with it. Ready when `GET /<bucket>` answers 200.
 */
// s3rver ships no types: the tests' declaration of what is used of it (an ambient module, which
// the build's tsconfig, without test/, would not see otherwise).
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="../test/types/s3rver.d.ts" />
import S3rver from 's3rver';

const server = new S3rver({
  address: '127.0.0.1',
  port: Number(process.env.PORT ?? 0),
  silent: true,
  directory: process.env.S3_DIR ?? '/tmp/parley-bench-s3',
  configureBuckets: [{ name: process.env.S3_BUCKET ?? 'bench' }],
});
server.run().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
process.on('SIGTERM', () => {
  void server.close().finally(() => process.exit(0));
});
