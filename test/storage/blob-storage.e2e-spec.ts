import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { BlobStorage, LocalBlobStorage } from '../../src/infra/storage/blob-storage';
import { S3BlobStorage } from '../../src/infra/storage/s3-blob-storage';
import { startS3, type TestS3 } from '../helpers/s3-server';

async function read(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let s3: TestS3;
let s3Storage: S3BlobStorage;
let localRoot: string;
let scratch: string;

beforeAll(async () => {
  s3 = await startS3();
  s3Storage = await S3BlobStorage.connect(s3.settings);
  localRoot = mkdtempSync(join(tmpdir(), 'parley-blobs-'));
  scratch = mkdtempSync(join(tmpdir(), 'parley-blob-src-'));
});

afterAll(async () => {
  s3Storage?.onModuleDestroy();
  await s3?.close();
  rmSync(localRoot, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

/** The BlobStorage port's contract, held by every implementation. */
describe.each([
  ['local disk', () => new LocalBlobStorage(localRoot) as BlobStorage],
  ['S3 (s3rver on loopback)', () => s3Storage as BlobStorage],
])('BlobStorage on %s', (_name, storage) => {
  it('puts, opens, lists one folder (not its sub-folders) and deletes, reporting the bytes freed', async () => {
    const blobs = storage();
    const a = Buffer.from('first blob');
    const b = randomBytes(4096);
    await blobs.put('assets/icons/1/a.png', a);
    await blobs.put('assets/icons/1/b.gif', b);
    await blobs.put('assets/icons/1/nested/c.png', Buffer.from('deeper'));
    await blobs.put('assets/icons/12/d.png', Buffer.from('a sibling with a longer name'));

    const opened = await blobs.open('assets/icons/1/b.gif');
    expect(opened?.size).toBe(4096);
    expect(sha(await read(opened!.stream))).toBe(sha(b));

    const listed = await blobs.list('assets/icons/1');
    expect(listed.sort((x, y) => x.key.localeCompare(y.key))).toEqual([
      { key: 'assets/icons/1/a.png', size: a.length },
      { key: 'assets/icons/1/b.gif', size: 4096 },
    ]);

    expect(await blobs.delete('assets/icons/1/a.png')).toBe(a.length);
    expect(await blobs.delete('assets/icons/1/a.png')).toBe(0);
    expect(await blobs.open('assets/icons/1/a.png')).toBeNull();
    expect(await blobs.list('assets/icons/1')).toEqual([
      { key: 'assets/icons/1/b.gif', size: 4096 },
    ]);
  });

  it('overwrites a key in place', async () => {
    const blobs = storage();
    await blobs.put('assets/banners/7/x.png', Buffer.from('old'));
    await blobs.put('assets/banners/7/x.png', Buffer.from('newer'));
    const opened = await blobs.open('assets/banners/7/x.png');
    expect((await read(opened!.stream)).toString()).toBe('newer');
  });

  it('stores a large file from disk (multipart on S3) byte for byte', async () => {
    const blobs = storage();
    // 19 MiB: three parts of 8 MiB on S3.
    const data = randomBytes(19 * 1024 * 1024);
    const source = join(scratch, `archive-${Date.now()}.zip`);
    writeFileSync(source, data);
    await blobs.putFile('archives/900.zip', source);
    const opened = await blobs.open('archives/900.zip');
    expect(opened?.size).toBe(data.length);
    expect(sha(await read(opened!.stream))).toBe(sha(data));
    expect(await blobs.delete('archives/900.zip')).toBe(data.length);
  }, 60_000);

  it('opens a byte range (inclusive, as HTTP names it), reporting the whole size', async () => {
    const blobs = storage();
    const data = randomBytes(10_000);
    await blobs.put('attachments/5/6', data);
    for (const [start, end] of [
      [0, 1],
      [0, 9],
      [1234, 5677],
      [9990, 9999],
      [0, 9999],
    ]) {
      const opened = await blobs.open('attachments/5/6', { start, end });
      expect({ start, size: opened?.size }).toEqual({ start, size: 10_000 });
      expect(await read(opened!.stream)).toEqual(data.subarray(start, end + 1));
    }
    expect(await blobs.open('attachments/5/none', { start: 0, end: 9 })).toBeNull();
  });

  it('lets a reader stop midway: destroying the stream ends the read', async () => {
    const blobs = storage();
    await blobs.put('attachments/5/7', randomBytes(1024 * 1024));
    const opened = await blobs.open('attachments/5/7');
    const first = await new Promise<Buffer>((resolve) =>
      opened!.stream.once('data', (chunk: Buffer) => resolve(chunk)),
    );
    expect(first.length).toBeGreaterThan(0);
    opened!.stream.destroy();
    await new Promise((r) => opened!.stream.once('close', r));
    expect(opened!.stream.destroyed).toBe(true);
  });

  it('answers null, [] and 0 for what does not exist', async () => {
    const blobs = storage();
    expect(await blobs.open('archives/none.zip')).toBeNull();
    expect(await blobs.list('assets/avatars/404')).toEqual([]);
    expect(await blobs.delete('assets/avatars/404/none.png')).toBe(0);
  });

  it('refuses keys that leave their folder', async () => {
    const blobs = storage();
    for (const key of ['../escape', 'assets/../../etc/passwd', '/absolute', 'a//b', 'a/./b', '']) {
      await expect(blobs.put(key, Buffer.from('x'))).rejects.toThrow(/invalid blob key/);
    }
  });
});

describe('S3 blob storage ranges', () => {
  it('refuses an answer for another range than asked instead of passing its bytes on', async () => {
    await s3Storage.put('attachments/5/8', randomBytes(100));
    // s3rver reads `bytes=0-0` as `bytes=0-` and answers the whole object (`bytes 0-99/100`).
    await expect(s3Storage.open('attachments/5/8', { start: 0, end: 0 })).rejects.toThrow(
      'S3 GetObject of attachments/5/8 for bytes 0-0 answered bytes 0-99/100',
    );
  });
});

describe('S3 blob storage start', () => {
  it('fails with a message naming the bucket and the endpoint when the bucket cannot be reached', async () => {
    await expect(
      S3BlobStorage.connect({ ...s3.settings, bucket: 'no-such-bucket' }),
    ).rejects.toThrow(
      `BLOB_STORAGE=s3: the bucket "no-such-bucket" at ${s3.endpoint} cannot be reached (NotFound, HTTP 404)`,
    );
  });
});
