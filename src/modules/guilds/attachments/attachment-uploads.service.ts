import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { DataSource, In, IsNull, type EntityManager } from 'typeorm';
import { ApiError, fieldError, type FieldError } from '../../../common/errors/api-error';
import { ErrorCode } from '../../../common/errors/error-code';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { parseSnowflake } from '../../../common/snowflake/snowflake';
import { SnowflakeService } from '../../../common/snowflake/snowflake.service';
import { AppConfig } from '../../../config/app.config';
import { BlobStorage } from '../../../infra/storage/blob-storage';
import type { DirectUploads } from '../../../infra/storage/s3-blob-storage';
import { GuildAccessService } from '../guild-access.service';
import { Permissions } from '../permissions';
import { AttachmentEntity } from './attachment.entity';
import { AttachmentStore, cleanFilename } from './attachment-store';
import { SNIFF_BYTES } from './sniff';
import { ATTACHMENT_FLAG_SPOILER, type StoredAttachment } from './stored-attachment';
import { UploadLinks } from './upload-links';
import type { CreateUploadUrlsDto } from './upload-urls.dto';
import type { UploadUrlsResponse } from './upload-urls.response';

/** What a message's `attachments[]` entry says of a file sent through an upload URL. */
export interface UploadRef {
  /** The client's id of the entry (the message's own business; not read here). */
  id?: string | number;
  /** A new name for the file; the name given to the upload URL when absent. */
  filename?: string;
  description?: string;
  /** The `upload_filename` the upload URL was given with. */
  uploaded_filename: string;
}

/** Uploading needs all three in the channel, as a message with files does. */
const UPLOAD_PERMISSIONS =
  Permissions.VIEW_CHANNEL | Permissions.SEND_MESSAGES | Permissions.ATTACH_FILES;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether the blob storage takes uploads straight from clients (S3BlobStorage). */
function directUploadsOf(blobs: BlobStorage): (BlobStorage & DirectUploads) | null {
  const candidate = blobs as Partial<DirectUploads>;
  return typeof candidate.presignPut === 'function' && typeof candidate.sizeOf === 'function'
    ? (blobs as BlobStorage & DirectUploads)
    : null;
}

/** A stored row as a message keeps it. */
function storedOf(row: AttachmentEntity): StoredAttachment {
  return {
    id: row.id,
    filename: row.filename,
    content_type: row.contentType,
    size: Number(row.size),
    width: row.width,
    height: row.height,
    flags: row.flags,
  };
}

/**
 * Discord's upload URLs (its client's flow for large files and browsers): a client asks for a URL
 * per file (`POST /channels/{id}/attachments`), PUTs each file's bytes there, then creates its
 * message naming each upload by its `upload_filename` (`resolveUploads`, called by message
 * creation). Every file has its row from the start (`stored` false, `expires_at` =
 * now + ATTACHMENT_UPLOAD_TTL), so one never attached is deleted by the sweep; a client may cancel
 * one first (`DELETE /attachments/{upload_filename}`).
 *
 * The URL is Parley's own signed PUT route (`receive`: streamed into blob storage, never held
 * whole) or, with S3_PRESIGNED_UPLOADS, a presigned PUT of the bucket itself: the bytes then never
 * cross Parley, which checks the object (its size, then its first bytes for sniffing) when the
 * message names it.
 */
@Injectable()
export class AttachmentUploadsService implements OnModuleInit {
  /**
   * Uploads whose bytes are arriving on this instance: a second PUT of the same upload at once is
   * refused (409) rather than racing the first into the same blob.
   */
  private readonly receiving = new Set<string>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: GuildAccessService,
    private readonly store: AttachmentStore,
    private readonly links: UploadLinks,
    private readonly blobs: BlobStorage,
    private readonly snowflakes: SnowflakeService,
    private readonly config: AppConfig,
  ) {}

  /** With presigned uploads, the boot fails unless a URL can be signed (the presigner loads). */
  async onModuleInit(): Promise<void> {
    if (!this.config.attachments.presignedUploads) return;
    const direct = directUploadsOf(this.blobs);
    if (!direct) throw new Error('S3_PRESIGNED_UPLOADS=true needs BLOB_STORAGE=s3');
    await direct.presignPut('attachments/start-up-check', {
      expiresInSeconds: 60,
      contentLength: 0,
    });
  }

  /**
   * Upload URLs for `dto.files` in a channel where the caller may send messages with files:
   * 403 without VIEW_CHANNEL, SEND_MESSAGES and ATTACH_FILES; 413 when a file is larger than
   * ATTACHMENT_UPLOAD_MAX_BYTES (nothing is made then).
   */
  async create(
    callerId: string,
    channelId: string,
    dto: CreateUploadUrlsDto,
  ): Promise<UploadUrlsResponse> {
    const access = await this.access.requireChannelPermission(
      callerId,
      channelId,
      UPLOAD_PERMISSIONS,
    );
    const max = this.config.attachments.uploadMaxBytes;
    if (dto.files.some((f) => f.file_size > max)) {
      throw new ApiError(ErrorCode.PayloadTooLarge, `A file may be at most ${max} bytes.`);
    }
    const ttl = this.config.attachments.uploadTtlSeconds;
    // Whole seconds: the signed URL carries its expiry in seconds, and the row expires with it.
    const expiresAt = new Date((Math.floor(Date.now() / 1000) + ttl) * 1000);
    const rows = dto.files.map((file) => {
      const id = this.snowflakes.next();
      const filename = cleanFilename(file.filename);
      return {
        id,
        channelId,
        guildId: access.guildId,
        uploaderId: callerId,
        filename,
        blobKey: AttachmentStore.blobKey(channelId, id),
        // Discord's form: unique and unguessable by its UUID; the name only reads well.
        uploadFilename: `${randomUUID()}/${filename}`,
        declaredSize: String(file.file_size),
        stored: false,
        expiresAt,
      };
    });
    await this.dataSource.getRepository(AttachmentEntity).insert(rows);
    const direct = this.config.attachments.presignedUploads ? directUploadsOf(this.blobs) : null;
    const urls = direct
      ? await Promise.all(
          rows.map((row, i) =>
            direct.presignPut(row.blobKey, {
              expiresInSeconds: ttl,
              contentLength: dto.files[i].file_size,
            }),
          ),
        )
      : rows.map((row) => this.links.url(row.id, expiresAt));
    return {
      attachments: rows.map((row, i) => ({
        id: dto.files[i].id,
        upload_url: urls[i],
        upload_filename: row.uploadFilename,
      })),
    };
  }

  /**
   * The signed PUT route: streams `body` into the upload's blob. Checked before a byte is read:
   * the signature and its expiry (403), the upload (cancelled: 404; already received or
   * attached: 409), the body's framing — `Content-Length`, when sent, must be the declared
   * size (larger: 413, smaller: 400), and no `Content-Encoding` (415). A chunked body is cut
   * off with 413 once it passes the declared size; one that ends short is a 400. Nothing is
   * left in storage after a failure, and the upload may be PUT again until it expires.
   */
  async receive(
    rawId: string,
    expires: unknown,
    signature: unknown,
    body: IncomingMessage,
  ): Promise<void> {
    const id = parseSnowflake(rawId);
    if (!id || !this.links.verify(id, expires, signature)) {
      throw new ApiError(ErrorCode.AccessDenied, 'This upload URL is invalid or has expired.');
    }
    const row = await this.dataSource.getRepository(AttachmentEntity).findOneBy({ id });
    if (!row || row.uploadFilename === null || row.declaredSize === null) {
      throw new ApiError(ErrorCode.UnknownAttachment, 'This upload was cancelled.');
    }
    if (row.stored || row.messageId !== null) {
      throw new ApiError(ErrorCode.Conflict, 'This upload has already been received.');
    }
    if (!row.expiresAt || row.expiresAt.getTime() <= Date.now()) {
      throw new ApiError(ErrorCode.AccessDenied, 'This upload URL is invalid or has expired.');
    }
    const size = Number(row.declaredSize);
    checkFraming(body, size);
    if (this.receiving.has(id)) {
      throw new ApiError(ErrorCode.Conflict, 'This upload is already being received.');
    }
    this.receiving.add(id);
    try {
      await this.store.storeInto(row, body, size);
    } finally {
      this.receiving.delete(id);
    }
  }

  /**
   * Cancels an upload of the caller's that no message holds: its blob goes now. Its row goes too
   * — unless the bucket takes uploads directly: a presigned URL cannot be taken back, so the row
   * stays until it expires, without its name (nothing can find or attach it), and the sweep
   * then deletes whatever was PUT to the bucket meanwhile. 404 for anything else.
   */
  async cancel(callerId: string, uploadFilename: string): Promise<void> {
    const uuid = uploadFilename.slice(0, uploadFilename.indexOf('/'));
    const unknown = new ApiError(ErrorCode.UnknownAttachment, 'Unknown upload.');
    if (!UUID.test(uuid)) throw unknown;
    const repo = this.dataSource.getRepository(AttachmentEntity);
    const row = await repo.findOneBy({ uploadFilename, uploaderId: callerId, messageId: IsNull() });
    if (!row) throw unknown;
    // The row first (unless a message took it meanwhile): a PUT still arriving then finds it
    // gone and deletes the blob it wrote (AttachmentStore.storeInto).
    const waiting = { id: row.id, messageId: IsNull() };
    const result = this.config.attachments.presignedUploads
      ? await repo.update(waiting, { uploadFilename: null, stored: false })
      : await repo.delete(waiting);
    if (result.affected !== 1) throw unknown;
    await this.blobs.delete(row.blobKey);
  }

  /**
   * The files a message names by `uploaded_filename` (Discord's `attachments[]` entries), for
   * message creation: each must be an upload of the caller's, for this channel, not expired,
   * cancelled or attached, named once, and complete — stored through the PUT route, or, with
   * presigned uploads, an object of exactly the declared size in the bucket (its first bytes
   * are then read for sniffing and the row marked stored). Any other is a 400
   * INVALID_FORM_BODY at `attachments.<i>.uploaded_filename`. In `m`, the message's transaction:
   * the rows stay locked until it ends, so two messages cannot take the same upload. The
   * result, in order, is ready for AttachmentStore.attach: `filename` the entry's (cleaned) or
   * the upload's, `description` the entry's, the spoiler flag from the final name.
   */
  async resolveUploads(
    m: EntityManager,
    callerId: string,
    channelId: string,
    refs: readonly UploadRef[],
    /** Where each ref stands in the body's `attachments` (error paths); by default its index. */
    positions?: readonly number[],
  ): Promise<StoredAttachment[]> {
    if (refs.length === 0) return [];
    const names = [...new Set(refs.map((r) => r.uploaded_filename))];
    const rows = await m.getRepository(AttachmentEntity).find({
      where: { uploadFilename: In(names) },
      lock: { mode: 'pessimistic_write' },
    });
    const byName = new Map(rows.map((row) => [row.uploadFilename, row]));
    const now = Date.now();
    const taken = new Set<string>();
    const errors: FieldError[] = [];
    const out: StoredAttachment[] = [];
    for (const [i, ref] of refs.entries()) {
      const path = `attachments.${positions?.[i] ?? i}.uploaded_filename`;
      const row = byName.get(ref.uploaded_filename);
      if (
        !row ||
        row.uploaderId !== callerId ||
        row.channelId !== channelId ||
        row.messageId !== null ||
        !row.expiresAt ||
        row.expiresAt.getTime() <= now ||
        taken.has(row.id)
      ) {
        errors.push(fieldError(path, FieldErrorCode.AttachmentUploadUnknown));
        continue;
      }
      taken.add(row.id);
      const stored = row.stored ? storedOf(row) : await this.checkDirectUpload(m, row);
      if (!stored) {
        errors.push(fieldError(path, FieldErrorCode.AttachmentUploadIncomplete));
        continue;
      }
      const filename = ref.filename ? cleanFilename(ref.filename) : stored.filename;
      const spoiler = filename.startsWith('SPOILER_') ? ATTACHMENT_FLAG_SPOILER : 0;
      out.push({
        ...stored,
        filename,
        ...(ref.description ? { description: ref.description } : {}),
        flags: (stored.flags & ~ATTACHMENT_FLAG_SPOILER) | spoiler,
      });
    }
    if (errors.length > 0) throw ApiError.form(errors);
    return out;
  }

  /**
   * An upload a client PUT straight into the bucket: stored when the object is there with
   * exactly the declared size (HeadObject), its first SNIFF_BYTES read (one ranged GetObject,
   * never the rest) for its media type and an image's size. Null when it is not (yet) complete.
   */
  private async checkDirectUpload(
    m: EntityManager,
    row: AttachmentEntity,
  ): Promise<StoredAttachment | null> {
    const direct = this.config.attachments.presignedUploads ? directUploadsOf(this.blobs) : null;
    if (!direct || row.declaredSize === null) return null;
    const size = await direct.sizeOf(row.blobKey);
    if (size === null || size !== Number(row.declaredSize)) return null;
    let head: Buffer = Buffer.alloc(0);
    if (size > 0) {
      const opened = await direct.open(row.blobKey, {
        start: 0,
        end: Math.min(size, SNIFF_BYTES) - 1,
      });
      if (!opened) return null;
      head = await readAll(opened.stream);
    }
    return this.store.markStored(m, row, head, size);
  }
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The checks of a PUT's framing that need no byte of its body: a body sent encoded would be
 * stored as its encoding (415), and a declared length other than the file's is refused before
 * reading (413 when larger, 400 when smaller). A chunked body is measured as it streams.
 */
function checkFraming(body: IncomingMessage, size: number): void {
  const encoding = (body.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity') {
    throw new ApiError(
      ErrorCode.UnsupportedMediaType,
      'Send the file as it is, without Content-Encoding.',
    );
  }
  const length = body.headers['content-length'];
  if (length === undefined) return;
  const declared = Number(length);
  if (declared > size) {
    throw new ApiError(
      ErrorCode.PayloadTooLarge,
      `Content-Length must be the file_size the upload URL was asked for (${size}).`,
    );
  }
  if (declared !== size) {
    throw new ApiError(
      ErrorCode.BadRequest,
      `Content-Length must be the file_size the upload URL was asked for (${size}).`,
    );
  }
}
