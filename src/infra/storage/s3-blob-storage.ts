import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { AppConfig } from '../../config/app.config';
import {
  assertBlobKey,
  BlobStorage,
  type BlobInfo,
  type ByteRange,
  type OpenedBlob,
} from './blob-storage';

/** Multipart parts of a streamed upload (S3's minimum is 5 MiB); two in flight at most. */
const PART_SIZE = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

type S3Settings = NonNullable<AppConfig['blobs']['s3']>;

/**
 * What a bucket offers beyond BlobStorage when clients upload straight into it
 * (S3_PRESIGNED_UPLOADS): a presigned PUT URL of a key, and the size of what arrived there.
 */
export interface DirectUploads {
  /**
   * A URL that PUTs exactly `contentLength` bytes under `key` without other credentials, for
   * `expiresInSeconds` (S3 allows at most 7 days).
   */
  presignPut(
    key: string,
    options: { expiresInSeconds: number; contentLength: number },
  ): Promise<string>;
  /** The size of the object under `key`, or null when there is none (its bytes: `open`). */
  sizeOf(key: string): Promise<number | null>;
}

type Presigner = typeof import('@aws-sdk/s3-request-presigner');
let presigner: Promise<Presigner> | undefined;

/** The presigner, loaded on first use (only presigned uploads need it). */
function loadPresigner(): Promise<Presigner> {
  presigner ??= import('@aws-sdk/s3-request-presigner');
  return presigner;
}

/**
 * Blobs as objects of one bucket on an S3-compatible store (AWS S3, MinIO, Ceph RGW, R2), so that
 * every instance sees what any instance wrote. Keys are the blob keys as they are. Large files
 * (archives) are streamed up in parts (lib-storage), never held whole in memory; reads stream the
 * object's body.
 */
export class S3BlobStorage extends BlobStorage implements DirectUploads {
  private constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {
    super();
  }

  /** A client for `settings`, after checking that the bucket can be reached with them. */
  static async connect(settings: S3Settings): Promise<S3BlobStorage> {
    const client = new S3Client({
      endpoint: settings.endpoint ?? undefined,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      credentials:
        settings.accessKeyId && settings.secretAccessKey
          ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
          : undefined,
      // Checksums only where S3 requires them: several S3-compatible stores refuse the CRC
      // trailers that newer SDKs send by default.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
    });
    try {
      await client.send(new HeadBucketCommand({ Bucket: settings.bucket }));
    } catch (err) {
      client.destroy();
      const where = settings.endpoint ?? `AWS S3 (${settings.region})`;
      throw new Error(
        `BLOB_STORAGE=s3: the bucket "${settings.bucket}" at ${where} cannot be reached ` +
          `(${describe(err)}); check S3_ENDPOINT, S3_BUCKET, the credentials, and that the ` +
          `bucket exists`,
      );
    }
    return new S3BlobStorage(client, settings.bucket);
  }

  async put(key: string, data: Buffer): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: assertBlobKey(key),
        Body: data,
        ContentLength: data.length,
      }),
    );
  }

  async putFile(key: string, sourcePath: string): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: assertBlobKey(key), Body: createReadStream(sourcePath) },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    await upload.done();
  }

  async putStream(key: string, source: Readable): Promise<number> {
    let bytes = 0;
    source.on('data', (chunk: Buffer) => (bytes += chunk.length));
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: assertBlobKey(key), Body: source },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    // lib-storage reads the body as it sends parts; an error of the source ends the upload
    // (its parts are aborted) — make sure it does even when the source is only destroyed.
    const failed = new Promise<never>((_resolve, reject) => source.once('error', reject));
    failed.catch(() => undefined);
    try {
      await Promise.race([upload.done(), failed]);
    } catch (err) {
      await upload.abort().catch(() => undefined);
      // A small body goes up as one PutObject, which abort() cannot take back once sent.
      await this.client
        .send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }))
        .catch(() => undefined);
      throw err;
    }
    return bytes;
  }

  async open(key: string, range?: ByteRange): Promise<OpenedBlob | null> {
    try {
      const object = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: assertBlobKey(key),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      const stream = object.Body as Readable;
      if (!range) return { stream, size: object.ContentLength ?? 0 };
      // A ranged answer's ContentLength is the range's; the whole size ends its Content-Range
      // (`bytes 0-9/1234`). A store that ignored the Range, or answered another one, is not
      // sending the bytes asked for: refused rather than served as them.
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(object.ContentRange ?? '');
      const total = Number(m?.[3]);
      if (!m || Number(m[1]) !== range.start || Number(m[2]) !== Math.min(range.end, total - 1)) {
        stream.destroy();
        throw new Error(
          `S3 GetObject of ${key} for bytes ${range.start}-${range.end} answered ` +
            `${object.ContentRange ?? 'the whole object'}`,
        );
      }
      return { stream, size: total };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  /**
   * A presigned PUT of `key` (query-string SigV4) whose signature covers `Content-Length`: the
   * bucket refuses a body of any other length, so a client cannot store more than it declared.
   */
  async presignPut(
    key: string,
    options: { expiresInSeconds: number; contentLength: number },
  ): Promise<string> {
    const presigner = await loadPresigner();
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: assertBlobKey(key),
      ContentLength: options.contentLength,
    });
    return presigner.getSignedUrl(this.client, command, {
      expiresIn: options.expiresInSeconds,
      signableHeaders: new Set(['content-length']),
    });
  }

  /** The size of an object, or null when there is none (HeadObject: no byte is read). */
  async sizeOf(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: assertBlobKey(key) }),
      );
      return head.ContentLength ?? 0;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async list(prefix: string): Promise<BlobInfo[]> {
    const folder = `${assertBlobKey(prefix)}/`;
    const out: BlobInfo[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: folder,
          Delimiter: '/',
          ContinuationToken: token,
        }),
      );
      for (const o of page.Contents ?? []) {
        if (o.Key) out.push({ key: o.Key, size: o.Size ?? 0 });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  async delete(key: string): Promise<number> {
    const Key = assertBlobKey(key);
    let size: number;
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }));
      size = head.ContentLength ?? 0;
    } catch (err) {
      if (isNotFound(err)) return 0;
      throw err;
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
    return size;
  }

  /** Nest calls it on shutdown (the factory's instance is a provider like any other). */
  onModuleDestroy(): void {
    this.client.destroy();
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  // A HEAD answer has no body: the SDK's message is then only "UnknownError".
  const message =
    e.message && e.message !== e.name && e.message !== 'UnknownError' ? e.message : null;
  return [e.name, status ? `HTTP ${status}` : null, message].filter(Boolean).join(', ');
}
