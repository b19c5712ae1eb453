import { Injectable } from '@nestjs/common';
import { constantTimeEqual, hmac } from '../../../common/crypto/tokens';
import { AppConfig } from '../../../config/app.config';

/**
 * Signed download links of archives: `<PUBLIC_URL>/v1/archives/<id>/download?expires=<unix s>&signature=<s>`
 * with `s = HMAC-SHA-256(K, "<id>.<expires>")` (base64url), where K is derived from SECRET_KEY
 * for this purpose only. The signature is the credential: the route needs no Authorization.
 */
@Injectable()
export class ArchiveLinks {
  private readonly key: Buffer;

  constructor(private readonly config: AppConfig) {
    this.key = Buffer.from(hmac(config.secretKey, 'parley/archive-download-url/v1'), 'base64url');
  }

  /** A link valid until `min(now + TTL, archiveExpiresAt)` (whole seconds). */
  create(
    archiveId: string,
    archiveExpiresAt: Date,
    now = Date.now(),
  ): { url: string; expiresAt: Date } {
    const until = Math.min(
      Math.floor(now / 1000) + this.config.archives.downloadUrlTtlSeconds,
      Math.floor(archiveExpiresAt.getTime() / 1000),
    );
    const signature = this.sign(archiveId, String(until));
    const url =
      `${this.config.apiUrl}/archives/${archiveId}/download` +
      `?expires=${until}&signature=${signature}`;
    return { url, expiresAt: new Date(until * 1000) };
  }

  /** Whether `signature` was made by `create` for this archive and `expires` has not passed. */
  verify(archiveId: string, expires: unknown, signature: unknown, now = Date.now()): boolean {
    if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires)) return false;
    if (typeof signature !== 'string' || signature.length > 100) return false;
    const valid = constantTimeEqual(this.sign(archiveId, expires), signature);
    return valid && Number(expires) * 1000 > now;
  }

  private sign(archiveId: string, expires: string): string {
    return hmac(this.key, `${archiveId}.${expires}`);
  }
}
