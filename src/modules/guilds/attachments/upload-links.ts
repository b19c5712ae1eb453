import { Injectable } from '@nestjs/common';
import { constantTimeEqual, hmac } from '../../../common/crypto/tokens';
import { AppConfig } from '../../../config/app.config';

/**
 * Signed upload URLs of Parley's own PUT route (when the bucket does not take the bytes itself):
 * `<PUBLIC_URL>/v1/attachments/uploads/<attachment id>?expires=<unix s>&signature=<s>` with
 * `s = HMAC-SHA-256(K, "<attachment id>.<expires>")` (base64url), K derived from SECRET_KEY for
 * this purpose only. The signature is the credential (the PUT carries no Authorization, as
 * Discord's upload URLs carry none): whoever holds the URL may send the file's bytes, once, until
 * the upload expires. Every instance with the same SECRET_KEY accepts it.
 */
@Injectable()
export class UploadLinks {
  private readonly key: Buffer;

  constructor(private readonly config: AppConfig) {
    this.key = Buffer.from(hmac(config.secretKey, 'parley/attachment-upload-url/v1'), 'base64url');
  }

  /** The PUT URL of an upload, valid until `expiresAt` (whole seconds). */
  url(attachmentId: string, expiresAt: Date): string {
    const expires = String(Math.floor(expiresAt.getTime() / 1000));
    const signature = this.sign(attachmentId, expires);
    return (
      `${this.config.apiUrl}/attachments/uploads/${attachmentId}` +
      `?expires=${expires}&signature=${signature}`
    );
  }

  /** Whether the query was signed by `url` for this upload and has not expired. */
  verify(attachmentId: string, expires: unknown, signature: unknown, now = Date.now()): boolean {
    if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires)) return false;
    if (typeof signature !== 'string' || signature.length > 100) return false;
    const valid = constantTimeEqual(this.sign(attachmentId, expires), signature);
    return valid && Number(expires) * 1000 > now;
  }

  private sign(attachmentId: string, expires: string): string {
    return hmac(this.key, `${attachmentId}.${expires}`);
  }
}
