import { Injectable } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { constantTimeEqual, hmac } from '../../../common/crypto/tokens';
import { AppConfig } from '../../../config/app.config';
import type { AttachmentResponse } from './attachment.response';
import type { StoredAttachment } from './stored-attachment';

/** A link's query as Discord writes it: expiry and issue time in hex Unix seconds, the HMAC. */
export interface LinkQuery {
  ex: string;
  is: string;
  hm: string;
}

const HEX_SECONDS = /^[0-9a-f]{1,12}$/;

/**
 * Discord-style signed links of attachments:
 * `<PUBLIC_URL>/v1/attachments/<channel>/<attachment>/<filename>?ex=<hex s>&is=<hex s>&hm=<hex>`
 * with `hm = HMAC-SHA-256(K, "<channel>/<attachment>:<ex>:<is>")` (hex), K derived from
 * SECRET_KEY for this purpose only. Whoever holds a link may download the file until `ex`; the
 * filename is not signed (the id names the file; a renamed link serves the same bytes).
 */
@Injectable()
export class AttachmentLinks {
  private readonly key: Buffer;

  constructor(private readonly config: AppConfig) {
    this.key = Buffer.from(hmac(config.secretKey, 'parley/attachment-url/v1'), 'base64url');
  }

  /** The attachment object with a fresh link (issued now, valid ATTACHMENT_URL_TTL). */
  present(channelId: string, a: StoredAttachment, now = Date.now()): AttachmentResponse {
    const url = this.url(channelId, a.id, a.filename, now);
    const out: AttachmentResponse = {
      id: a.id,
      filename: a.filename,
      content_type: a.content_type,
      size: a.size,
      url,
      proxy_url: url,
      flags: a.flags,
    };
    if (a.description) out.description = a.description;
    if (a.width != null && a.height != null) {
      out.width = a.width;
      out.height = a.height;
    }
    if (a.ephemeral) out.ephemeral = true;
    return out;
  }

  /** A message's attachments as shown now (each with a fresh link). */
  presentAll(
    channelId: string,
    stored: readonly StoredAttachment[] | undefined,
  ): AttachmentResponse[] {
    if (!stored || stored.length === 0) return [];
    const now = Date.now();
    return stored.map((a) => this.present(channelId, a, now));
  }

  /** A signed link to one attachment. */
  url(channelId: string, attachmentId: string, filename: string, now = Date.now()): string {
    const issued = Math.floor(now / 1000);
    const is = issued.toString(16);
    const ex = (issued + this.config.attachments.urlTtlSeconds).toString(16);
    const hm = this.sign(channelId, attachmentId, ex, is);
    return (
      `${this.config.apiUrl}/attachments/${channelId}/${attachmentId}/` +
      `${encodeURIComponent(filename)}?ex=${ex}&is=${is}&hm=${hm}`
    );
  }

  /** Whether the query was signed for this attachment and has not expired. */
  verify(
    channelId: string,
    attachmentId: string,
    query: Partial<LinkQuery>,
    now = Date.now(),
  ): boolean {
    const { ex, is, hm } = query;
    if (typeof ex !== 'string' || typeof is !== 'string' || typeof hm !== 'string') return false;
    if (!HEX_SECONDS.test(ex) || !HEX_SECONDS.test(is) || hm.length !== 64) return false;
    const valid = constantTimeEqual(this.sign(channelId, attachmentId, ex, is), hm);
    return valid && parseInt(ex, 16) * 1000 > now;
  }

  /** Where a link (any of Parley's attachment links, fresh or not) points, or null. */
  parse(link: string): { channelId: string; attachmentId: string } | null {
    let url: URL;
    try {
      url = new URL(link);
    } catch {
      return null;
    }
    const m = /\/attachments\/(\d{1,20})\/(\d{1,20})\/[^/]+$/.exec(url.pathname);
    return m ? { channelId: m[1], attachmentId: m[2] } : null;
  }

  private sign(channelId: string, attachmentId: string, ex: string, is: string): string {
    return createHmac('sha256', this.key)
      .update(`${channelId}/${attachmentId}:${ex}:${is}`)
      .digest('hex');
  }
}
