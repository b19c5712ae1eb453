import S3rver from 's3rver';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppConfig } from '../../src/config/app.config';

/** s3rver's fixed credentials (it checks signatures made with them). */
const ACCESS_KEY = 'S3RVER';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** The environment that points an app at this bucket… */
  env: Record<string, string>;
  /** …and the same as the settings S3BlobStorage.connect takes (for a test's own client). */
  settings: NonNullable<AppConfig['blobs']['s3']>;
  close(): Promise<void>;
}

/**
 * A real S3 HTTP server (s3rver) on a free loopback port, with one empty bucket, its objects in
 * a temp folder removed on close.
 */
export async function startS3(bucket = 'parley-test'): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'parley-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: {
      BLOB_STORAGE: 's3',
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: ACCESS_KEY,
      S3_SECRET_ACCESS_KEY: ACCESS_KEY,
      S3_FORCE_PATH_STYLE: 'true',
    },
    settings: {
      endpoint,
      region: 'us-east-1',
      bucket,
      accessKeyId: ACCESS_KEY,
      secretAccessKey: ACCESS_KEY,
      forcePathStyle: true,
    },
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
