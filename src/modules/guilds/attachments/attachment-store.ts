import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { DataSource, In, IsNull, type EntityManager } from 'typeorm';
import { ApiError } from '../../../common/errors/api-error';
import type { FileIntake } from '../../../common/http/multipart';
import { ErrorCode } from '../../../common/errors/error-code';
import { SnowflakeService } from '../../../common/snowflake/snowflake.service';
import { AppConfig } from '../../../config/app.config';
import { Metrics } from '../../../infra/metrics/metrics';
import { BlobStorage } from '../../../infra/storage/blob-storage';
import { AttachmentEntity } from './attachment.entity';
import { AttachmentSweeper } from './attachment-sweeper';
import type { AttachmentPlan } from './message-attachments';
import { imageDimensions, SNIFF_BYTES, sniffContentType } from './sniff';
import { ATTACHMENT_FLAG_SPOILER, type StoredAttachment } from './stored-attachment';

/** Where a file is received for: the channel its message goes to, and who sends it. */
export interface ReceiveTarget {
  channelId: string;
  guildId: string | null;
  uploaderId: string | null;
}

/** A file whose bytes are in blob storage, not yet on a message. */
export interface ReceivedFile extends StoredAttachment {
  /** The form field it came in (`files[0]`…), whose index `attachments[].id` refers to. */
  field: string;
  /** The channel it was stored for. */
  channelId: string;
}

/** Thrown by a size guard when a file grows past its limit (answered 413). */
export class FileTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`file larger than ${limit} bytes`);
  }
}

/** Thrown by a size guard when a file of a declared size ends short of it (answered 400). */
export class FileIncomplete extends Error {
  constructor(
    readonly expected: number,
    readonly received: number,
  ) {
    super(`file of ${received} bytes, ${expected} declared`);
  }
}

/**
 * Counts a file's bytes as they pass, fails the stream once there are more than `limit` (or, with
 * `expected`, when it ends with fewer), and keeps the first SNIFF_BYTES for sniffing: the one pass
 * over an upload's bytes.
 */
export class UploadGuard extends Transform {
  bytes = 0;
  private readonly headChunks: Buffer[] = [];
  private headBytes = 0;

  constructor(
    private readonly limit: number,
    private readonly expected?: number,
  ) {
    super();
    // Bytes flow in as soon as the source is piped, while the store may still be opening its
    // file (Node 22+ lets 64 KiB through before backpressure): a failure then must not be an
    // unhandled 'error'. It is not lost — the store's pipeline finds the stream errored, and
    // `failure` tells what it was.
    this.on('error', () => undefined);
  }

  /** Why the guard failed (its own limit, or the source's error), or null. */
  get failure(): Error | null {
    return this.errored ?? null;
  }

  get head(): Buffer {
    return Buffer.concat(this.headChunks, this.headBytes);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) return done(new FileTooLarge(this.limit));
    if (this.headBytes < SNIFF_BYTES) {
      const part = chunk.subarray(0, SNIFF_BYTES - this.headBytes);
      // A copy: the parser may reuse the chunk's memory.
      this.headChunks.push(Buffer.from(part));
      this.headBytes += part.length;
    }
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    if (this.expected !== undefined && this.bytes !== this.expected) {
      return done(new FileIncomplete(this.expected, this.bytes));
    }
    done();
  }
}

/** A filename as stored and shown: no path, no control characters, at most 1,024 characters. */
export function cleanFilename(name: string | undefined | null): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 1024);
  return clean.length > 0 && clean !== '.' && clean !== '..' ? clean : 'file';
}

/**
 * Files into blob storage and back out of it (DESIGN.md "Files"). A file gets its row before its
 * first byte is stored (`expires_at` = now + ATTACHMENT_UPLOAD_TTL), so an upload cut short by a
 * crash is still found and deleted by the sweep; its bytes stream through an UploadGuard into
 * `BlobStorage.putStream` (a disk file or an S3 multipart upload), never held whole. Its media
 * type is sniffed from its first bytes and an image's size read from its header.
 */
@Injectable()
export class AttachmentStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly blobs: BlobStorage,
    private readonly snowflakes: SnowflakeService,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
    private readonly sweeper: AttachmentSweeper,
  ) {}

  /** The blob key of an attachment. */
  static blobKey(channelId: string, attachmentId: string): string {
    return `attachments/${channelId}/${attachmentId}`;
  }

  /**
   * Stores one file from `source` for `target`, failing with 413 PAYLOAD_TOO_LARGE past `limit`
   * bytes (nothing is left behind then, nor on any other failure of the source).
   */
  async receive(
    target: ReceiveTarget,
    source: Readable,
    file: { field: string; filename: string; limit: number },
  ): Promise<ReceivedFile> {
    const id = this.snowflakes.next();
    const filename = cleanFilename(file.filename);
    const blobKey = AttachmentStore.blobKey(target.channelId, id);
    const repo = this.dataSource.getRepository(AttachmentEntity);
    // Listening before the first await: a part cut off while its row is written (the client
    // gone) must fail the guard, not leave it waiting for bytes that never come.
    const guard = new UploadGuard(file.limit);
    source.once('error', (err) => guard.destroy(err));
    source.once('close', () => {
      if (!source.readableEnded) guard.destroy(new Error('the file part ended early'));
    });
    await repo.insert({
      id,
      channelId: target.channelId,
      guildId: target.guildId,
      uploaderId: target.uploaderId,
      filename,
      blobKey,
      expiresAt: new Date(Date.now() + this.config.attachments.uploadTtlSeconds * 1000),
    });
    try {
      await this.blobs.putStream(blobKey, source.pipe(guard));
    } catch (err) {
      await repo.delete({ id }).catch(() => undefined);
      const cause = guard.failure ?? err;
      if (cause instanceof FileTooLarge) throw new ApiError(ErrorCode.PayloadTooLarge);
      throw cause;
    }
    const stored = await this.markStored(
      this.dataSource.manager,
      { id, filename },
      guard.head,
      guard.bytes,
    );
    // Only a sweep after ATTACHMENT_UPLOAD_TTL could have taken the row meanwhile.
    if (!stored) throw new ApiError(ErrorCode.BadRequest, 'The upload took too long.');
    return { ...stored, field: file.field, channelId: target.channelId };
  }

  /** An intake that stores a request's files for `target` (multipart.ts), up to ATTACHMENT_MAX_BYTES each. */
  intakeFor(target: ReceiveTarget): FileIntake<ReceivedFile> {
    const { maxBytes, maxFiles } = this.config.attachments;
    return {
      maxFileBytes: maxBytes,
      maxFiles,
      receive: (source, part) =>
        this.receive(target, source, {
          field: part.field,
          filename: part.filename,
          limit: maxBytes,
        }),
      discard: (files) => this.discard(files),
    };
  }

  /**
   * Stores an upload URL's bytes (attachment-uploads.service.ts) from `source` into the blob of
   * its row, made when the URL was asked for: exactly `size` bytes — a body that grows past it
   * fails with 413 PAYLOAD_TOO_LARGE as the extra bytes arrive, one that ends short with 400.
   * On any failure no blob is left and the row stays unstored, so the client may PUT again. The
   * row is then marked stored, with what was sniffed, unless it stopped waiting for these bytes
   * meanwhile: cancelled (the blob just written is deleted; 404) or filled by a concurrent PUT of
   * the same upload (409; the blob is that one's now).
   */
  async storeInto(
    row: AttachmentEntity,
    source: Readable,
    size: number,
  ): Promise<StoredAttachment> {
    const guard = new UploadGuard(size, size);
    source.on('error', (err) => guard.destroy(err));
    // A client gone mid-body: its request closes without ending (and may emit no error).
    source.on('close', () => {
      if (!source.readableEnded) guard.destroy(new Error('the body ended early'));
    });
    try {
      await this.blobs.putStream(row.blobKey, source.pipe(guard));
    } catch (err) {
      const cause = guard.failure ?? err;
      if (cause instanceof FileTooLarge) throw new ApiError(ErrorCode.PayloadTooLarge);
      if (cause instanceof FileIncomplete) {
        throw new ApiError(
          ErrorCode.BadRequest,
          `The body ended after ${cause.received} of the ${cause.expected} bytes declared.`,
        );
      }
      throw cause;
    }
    const stored = await this.markStored(this.dataSource.manager, row, guard.head, guard.bytes);
    if (stored) return stored;
    const repo = this.dataSource.getRepository(AttachmentEntity);
    if (await repo.existsBy({ id: row.id })) {
      throw new ApiError(ErrorCode.Conflict, 'This upload has already been received.');
    }
    await this.blobs.delete(row.blobKey);
    throw new ApiError(ErrorCode.UnknownAttachment, 'This upload was cancelled.');
  }

  /**
   * Records that the bytes of a waiting, unattached row are all in its blob: the media type
   * sniffed from `head` (its first SNIFF_BYTES), an image's size, `size`. Null when the row was
   * not waiting any more (already stored, attached or gone). In `m`, the caller's unit of work.
   */
  async markStored(
    m: EntityManager,
    row: Pick<AttachmentEntity, 'id' | 'filename'>,
    head: Buffer,
    size: number,
  ): Promise<StoredAttachment | null> {
    const contentType = sniffContentType(head);
    const dims = imageDimensions(head, contentType);
    const stored: StoredAttachment = {
      id: row.id,
      filename: row.filename,
      content_type: contentType,
      size,
      width: dims?.width ?? null,
      height: dims?.height ?? null,
      flags: row.filename.startsWith('SPOILER_') ? ATTACHMENT_FLAG_SPOILER : 0,
    };
    const result = await m.getRepository(AttachmentEntity).update(
      { id: row.id, stored: false, messageId: IsNull() },
      {
        contentType,
        size: String(size),
        width: stored.width,
        height: stored.height,
        flags: stored.flags,
        stored: true,
      },
    );
    if (result.affected !== 1) return null;
    this.metrics.attachmentStored(size);
    return stored;
  }

  /**
   * Gives received or uploaded files to a message (in its transaction): they are no longer due
   * for deletion. `descriptions` by attachment id.
   */
  async attach(m: EntityManager, messageId: string, files: StoredAttachment[]): Promise<void> {
    if (files.length === 0) return;
    for (const f of files) {
      await m
        .getRepository(AttachmentEntity)
        .update(
          { id: f.id, messageId: IsNull() },
          { messageId, expiresAt: null, description: f.description ?? null, filename: f.filename },
        );
    }
  }

  /**
   * Keeps files that belong to no message row (an ephemeral message's) until `until`; the sweep
   * deletes them then.
   */
  async keepUntil(m: EntityManager, files: Array<{ id: string }>, until: Date): Promise<void> {
    if (files.length === 0) return;
    await m
      .getRepository(AttachmentEntity)
      .update({ id: In(files.map((f) => f.id)), messageId: IsNull() }, { expiresAt: until });
  }

  /** Writes a message's plan (message-attachments.ts): the files it took, those it let go. */
  async settle(m: EntityManager, messageId: string, plan: AttachmentPlan): Promise<void> {
    await this.attach(m, messageId, plan.taken);
    await this.detach(m, plan.dropped);
  }

  /**
   * Takes attachments off their message (an edit dropped them, an admin purged them): their
   * blobs are due for deletion by the sweep.
   */
  async detach(m: EntityManager, files: Array<{ id: string }>): Promise<void> {
    if (files.length === 0) return;
    await m
      .getRepository(AttachmentEntity)
      .update({ id: In(files.map((f) => f.id)) }, { messageId: null, expiresAt: null });
    await this.sweeper.enqueue(m);
  }

  /** Messages were deleted in `m`'s transaction: their files are swept once it commits. */
  messagesDeleted(m: EntityManager): Promise<void> {
    return this.sweeper.enqueue(m);
  }

  /**
   * Lets go of files a request received but will not use (the message was refused): their
   * blobs and rows go now (the sweep would find them later otherwise).
   */
  async discard(files: Array<{ id: string }>): Promise<void> {
    if (files.length === 0) return;
    const rows = await this.dataSource
      .getRepository(AttachmentEntity)
      .find({ where: { id: In(files.map((f) => f.id)), messageId: IsNull() } });
    let bytes = 0;
    for (const row of rows) {
      bytes += await this.blobs.delete(row.blobKey);
      await this.dataSource.getRepository(AttachmentEntity).delete({ id: row.id });
    }
    if (rows.length > 0) this.metrics.attachmentsDeleted(rows.length, bytes);
  }
}
