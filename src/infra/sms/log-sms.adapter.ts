import { Injectable, Logger } from '@nestjs/common';
import { maskPhone } from '../../modules/users/user.mapper';
import type { SmsMessage, SmsPort } from './sms.port';

const KEEP = 100;

/**
 * The default adapter (`SMS_PROVIDER=log`): logs the masked recipient and the purpose — never the
 * text, which carries a code — and keeps the last messages in memory so developers and tests can
 * read them (`app.get(LogSmsAdapter).last(phone)`).
 */
@Injectable()
export class LogSmsAdapter implements SmsPort {
  private readonly logger = new Logger('Sms');
  private readonly sent: SmsMessage[] = [];

  send(message: SmsMessage): Promise<void> {
    this.sent.push(message);
    if (this.sent.length > KEEP) this.sent.splice(0, this.sent.length - KEEP);
    this.logger.log(`SMS to ${maskPhone(message.to)}: ${message.purpose}`);
    return Promise.resolve();
  }

  /** The newest message sent to `to` (optionally for one purpose). */
  last(to: string, purpose?: string): SmsMessage | undefined {
    for (let i = this.sent.length - 1; i >= 0; i--) {
      const m = this.sent[i];
      if (m.to === to && (!purpose || m.purpose === purpose)) return m;
    }
    return undefined;
  }
}
