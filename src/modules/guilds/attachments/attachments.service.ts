import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { DataSource, In, IsNull, Not } from 'typeorm';
import { ApiError } from '../../../common/errors/api-error';
import { ErrorCode } from '../../../common/errors/error-code';
import { parseSnowflake } from '../../../common/snowflake/snowflake';
import { BlobStorage, type ByteRange } from '../../../infra/storage/blob-storage';
import { GuildAccessService } from '../guild-access.service';
import { Permissions } from '../permissions';
import { AttachmentLinks, type LinkQuery } from './attachment-links';
import { AttachmentEntity } from './attachment.entity';
import {
  attachmentEtag,
  contentDisposition,
  DOWNLOAD_SECURITY_HEADERS,
  noneMatch,
  rangeAllowed,
  requestedRange,
} from './download-headers';
import type { RefreshUrlsResponse } from './refresh-urls.response';
import { servedInline } from './sniff';

/** The request a download answers: its method (HEAD sends no bytes) and its headers. */
export interface DownloadRequest {
  method: string;
  headers: IncomingHttpHeaders;
}

/** The bytes of a download and their entity headers (Content-Type, -Length, -Disposition). */
export interface DownloadBody {
  /** The file or the range asked for; an empty stream for a HEAD. */
  stream: Readable;
  type: string;
  length: number;
  disposition: string;
}

/**
 * What a download answers: the status, the headers about the file (validators, caching, ranges,
 * the security headers), and the bytes — none for a 304.
 */
export interface AttachmentDownload {
  status: 200 | 206 | 304;
  headers: Record<string, string>;
  body: DownloadBody | null;
}

/** A query value as sent once (a repeated parameter is an array: no signature matches it). */
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : v;
};

/**
 * The files behind attachment links: serving a signed link (DESIGN.md "Files") and signing links
 * again for whoever can still read the message. A link is a credential of its own — whoever holds
 * it downloads the file until it expires — so serving asks no caller anything; refreshing asks
 * the guild's access rule, as reading the message does.
 */
@Injectable()
export class AttachmentsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly blobs: BlobStorage,
    private readonly links: AttachmentLinks,
    private readonly access: GuildAccessService,
  ) {}

  /**
   * The file a signed link points to. A link that is not signed for this channel and attachment,
   * or has expired → 403 ACCESS_DENIED (before anything is looked up); a file that is not (or no
   * longer) on a message → 404 UNKNOWN_ATTACHMENT. Unattached files are served only while they
   * have not expired: a link to one exists only when an ephemeral message showed it.
   */
  async download(
    channelId: string,
    attachmentId: string,
    query: Record<keyof LinkQuery, unknown>,
    req: DownloadRequest,
    now = Date.now(),
  ): Promise<AttachmentDownload> {
    const link: Partial<LinkQuery> = { ex: text(query.ex), is: text(query.is), hm: text(query.hm) };
    if (!this.links.verify(channelId, attachmentId, link, now)) {
      throw new ApiError(ErrorCode.AccessDenied, 'This link is invalid or has expired.');
    }
    const row = await this.dataSource
      .getRepository(AttachmentEntity)
      .findOneBy({ id: attachmentId, channelId });
    const servable =
      row?.stored === true &&
      (row.messageId !== null || (row.expiresAt !== null && row.expiresAt.getTime() > now));
    if (!row || !servable) throw new ApiError(ErrorCode.UnknownAttachment);

    const size = Number(row.size);
    const etag = attachmentEtag(row.id, size);
    // Cached no longer than the link is valid: a cache must not serve a link after it expired.
    const expiresIn = Math.max(0, Math.floor((parseInt(link.ex!, 16) * 1000 - now) / 1000));
    const validators: Record<string, string> = {
      ...DOWNLOAD_SECURITY_HEADERS,
      ETag: etag,
      'Cache-Control': `private, max-age=${expiresIn}`,
    };
    // A 304 carries the validators only (RFC 9110 §15.4.5), no metadata of the bytes.
    if (noneMatch(header(req.headers, 'if-none-match'), etag)) {
      return { status: 304, headers: validators, body: null };
    }
    const asked = rangeAllowed(header(req.headers, 'if-range'), etag)
      ? requestedRange(header(req.headers, 'range'), size)
      : ({ kind: 'all' } as const);
    if (asked.kind === 'unsatisfiable') {
      throw new ApiError(ErrorCode.RangeNotSatisfiable, undefined, undefined, {
        ...DOWNLOAD_SECURITY_HEADERS,
        'Accept-Ranges': 'bytes',
        'Content-Range': `bytes */${size}`,
      });
    }
    const range: ByteRange | undefined = asked.kind === 'range' ? asked.range : undefined;
    const headers: Record<string, string> = { ...validators, 'Accept-Ranges': 'bytes' };
    if (range) headers['Content-Range'] = `bytes ${range.start}-${range.end}/${size}`;
    const status = range ? 206 : 200;
    const body = {
      type: row.contentType,
      length: range ? range.end - range.start + 1 : size,
      disposition: contentDisposition(
        servedInline(row.contentType) ? 'inline' : 'attachment',
        row.filename,
      ),
    };
    // HEAD: the headers of a GET without its bytes; the blob is not even opened.
    if (req.method === 'HEAD')
      return { status, headers, body: { ...body, stream: Readable.from([]) } };
    const opened = await this.blobs.open(row.blobKey, range);
    // Its blob deleted since the row was read (the message went meanwhile).
    if (!opened) throw new ApiError(ErrorCode.UnknownAttachment);
    return { status, headers, body: { ...body, stream: opened.stream } };
  }

  /**
   * Discord's refresh: a fresh link for each link to a file on a message the caller can read
   * (VIEW_CHANNEL and READ_MESSAGE_HISTORY in its channel, as reading the message needs). Links the
   * caller cannot see, to files no longer on a message, and anything else are left out, without
   * saying why.
   */
  async refreshUrls(
    userId: string,
    urls: string[],
    now = Date.now(),
  ): Promise<RefreshUrlsResponse> {
    const wanted = urls.flatMap((original) => {
      const where = this.links.parse(original);
      const channelId = parseSnowflake(where?.channelId);
      const attachmentId = parseSnowflake(where?.attachmentId);
      return channelId && attachmentId ? [{ original, channelId, attachmentId }] : [];
    });
    if (wanted.length === 0) return { refreshed_urls: [] };
    const rows = await this.dataSource.getRepository(AttachmentEntity).find({
      select: { id: true, channelId: true, filename: true },
      where: {
        id: In([...new Set(wanted.map((w) => w.attachmentId))]),
        messageId: Not(IsNull()),
        stored: true,
      },
    });
    const byId = new Map(rows.map((r) => [r.id, r]));
    const found = wanted.filter((w) => byId.get(w.attachmentId)?.channelId === w.channelId);
    const readable = new Set<string>();
    for (const channelId of new Set(found.map((w) => w.channelId))) {
      if (await this.canRead(userId, channelId)) readable.add(channelId);
    }
    return {
      refreshed_urls: found
        .filter((w) => readable.has(w.channelId))
        .map((w) => ({
          original: w.original,
          refreshed: this.links.url(
            w.channelId,
            w.attachmentId,
            byId.get(w.attachmentId)!.filename,
            now,
          ),
        })),
    };
  }

  /** Whether the user may read the channel's messages (the rule of `GET` of a message). */
  private async canRead(userId: string, channelId: string): Promise<boolean> {
    try {
      await this.access.requireChannelPermission(
        userId,
        channelId,
        Permissions.VIEW_CHANNEL | Permissions.READ_MESSAGE_HISTORY,
      );
      return true;
    } catch (err) {
      if (err instanceof ApiError) return false;
      throw err;
    }
  }
}
