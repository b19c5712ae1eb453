/**
 * The file-transfer ceiling of the attachments bench (bench/attachments.ts), run as its own
 * process on the same runtime as Parley: a bare Node http server on `PORT` (127.0.0.1) that
 * copies a request's body to the store as it streams and a stored file back to a response —
 * nothing parsed, checked or recorded.
 *
 * - `POST /upload`: the raw body (the same multipart bytes the client sends Parley) to a new file
 *   in BARE_DIR with `pipeline(req, fs.createWriteStream(...))`, or — with BARE_STORE=s3 and the
 *   app's S3_* variables — to a new object by `@aws-sdk/lib-storage` `Upload` straight from the
 *   request (lib-storage's default parts: 5 MiB, 4 in flight). Answers `{"key": …}`.
 * - `GET /download/<key>`: `pipeline(fs.createReadStream(BARE_DIR/<key>), res)`, or the S3
 *   object's body piped to the response.
 * - `GET /ping`: 200 once listening.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createReadStream, createWriteStream, mkdirSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const dir = process.env.BARE_DIR ?? '/tmp/parley-bare-store';
mkdirSync(dir, { recursive: true });
const s3 =
  process.env.BARE_STORE === 's3'
    ? {
        bucket: process.env.S3_BUCKET ?? 'bench',
        // The app's client settings (src/infra/storage/s3-blob-storage.ts), so that both send
        // the same requests: no checksums S3 does not require.
        client: new S3Client({
          endpoint: process.env.S3_ENDPOINT,
          region: process.env.S3_REGION ?? 'us-east-1',
          forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true',
          credentials: {
            accessKeyId: process.env.S3_ACCESS_KEY_ID ?? '',
            secretAccessKey: process.env.S3_SECRET_ACCESS_KEY ?? '',
          },
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
        }),
      }
    : null;

let counter = 0;

async function upload(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const key = `${process.pid}-${++counter}`;
  if (s3) {
    await new Upload({
      client: s3.client,
      params: { Bucket: s3.bucket, Key: key, Body: req },
    }).done();
  } else {
    await pipeline(req, createWriteStream(join(dir, key)));
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ key }));
}

async function download(key: string, res: ServerResponse): Promise<void> {
  if (!/^[\w-]+$/.test(key)) {
    res.writeHead(404).end();
    return;
  }
  if (s3) {
    const object = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': String(object.ContentLength ?? 0),
    });
    await pipeline(object.Body as Readable, res);
    return;
  }
  const path = join(dir, key);
  res.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-length': String(statSync(path).size),
  });
  await pipeline(createReadStream(path), res);
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://bare');
  const fail = (err: unknown) => {
    if (!res.headersSent) res.writeHead(500).end(String(err));
    else res.destroy();
  };
  if (url.pathname === '/ping') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  } else if (url.pathname === '/upload' && req.method === 'POST') {
    upload(req, res).catch(fail);
  } else if (url.pathname.startsWith('/download/') && req.method === 'GET') {
    download(url.pathname.slice('/download/'.length), res).catch(fail);
  } else {
    res.writeHead(404).end();
  }
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
