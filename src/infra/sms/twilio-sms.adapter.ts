import { Logger } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { maskPhone } from '../../modules/users/user.mapper';
import type { SmsMessage, SmsPort } from './sms.port';

export interface TwilioSettings {
  /** e.g. `https://api.twilio.com`, or a compatible provider's base URL. */
  baseUrl: string;
  accountSid: string;
  authToken: string;
  from: string;
  timeoutMs?: number;
}

/**
 * Twilio's Messages API (`POST {base}/2010-04-01/Accounts/{sid}/Messages.json`, Basic auth,
 * form-encoded `To`, `From`, `Body`) — also spoken by Twilio-compatible providers. A refusal or an
 * unreachable provider is 503 `SMS_DELIVERY_FAILED`; the log line names the status, never the text.
 */
export class TwilioSmsAdapter implements SmsPort {
  private readonly logger = new Logger('Sms');
  private readonly url: string;
  private readonly authorization: string;

  constructor(private readonly settings: TwilioSettings) {
    const base = settings.baseUrl.replace(/\/+$/, '');
    this.url = `${base}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`;
    this.authorization = `Basic ${Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString('base64')}`;
  }

  async send(message: SmsMessage): Promise<void> {
    let status: number;
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: {
          Authorization: this.authorization,
          'Content-Type': 'application/x-www-form-urlencoded',
          Accept: 'application/json',
        },
        body: new URLSearchParams({
          To: message.to,
          From: this.settings.from,
          Body: message.body,
        }).toString(),
        signal: AbortSignal.timeout(this.settings.timeoutMs ?? 10_000),
      });
      status = res.status;
      // Drain the body so the connection is reused.
      await res.arrayBuffer().catch(() => undefined);
    } catch (e) {
      this.logger.warn(
        `SMS to ${maskPhone(message.to)} failed: ${e instanceof Error ? e.message : String(e)}`,
      );
      throw new ApiError(ErrorCode.SmsDeliveryFailed);
    }
    if (status < 200 || status >= 300) {
      this.logger.warn(`SMS to ${maskPhone(message.to)} refused by the provider: HTTP ${status}`);
      throw new ApiError(ErrorCode.SmsDeliveryFailed);
    }
  }
}
