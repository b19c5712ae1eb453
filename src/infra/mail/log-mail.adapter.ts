import { Injectable, Logger } from '@nestjs/common';
import type { MailMessage, MailPort } from './mail.port';

const KEEP = 100;

/** Replaces the secret part of a link (`#token=…`) so logs never carry a usable token. */
export function redactLink(link: string): string {
  return link.replace(/([#?&]token=)[^&#\s]+/g, '$1[REDACTED]');
}

/**
 * The default adapter: logs recipient, subject and the redacted link, and keeps the last messages
 * in memory so developers and tests can read them (`app.get(LogMailAdapter).last(...)`).
 */
@Injectable()
export class LogMailAdapter implements MailPort {
  private readonly logger = new Logger('Mail');
  private readonly sent: MailMessage[] = [];

  send(message: MailMessage): Promise<void> {
    this.sent.push(message);
    if (this.sent.length > KEEP) this.sent.splice(0, this.sent.length - KEEP);
    const link = message.link ? ` ${redactLink(message.link)}` : '';
    this.logger.log(`mail to ${message.to}: ${message.subject}${link}`);
    return Promise.resolve();
  }

  /** Messages kept in memory, oldest first. */
  messages(): readonly MailMessage[] {
    return this.sent;
  }

  /** The newest message sent to `to` (optionally of one template). */
  last(to: string, template?: string): MailMessage | undefined {
    const lower = to.toLowerCase();
    for (let i = this.sent.length - 1; i >= 0; i--) {
      const m = this.sent[i];
      if (m.to.toLowerCase() === lower && (!template || m.template === template)) return m;
    }
    return undefined;
  }
}
