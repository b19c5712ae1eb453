import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import { redactLink } from './log-mail.adapter';
import type { MailMessage, MailPort } from './mail.port';

/** Sends through an SMTP server (`SMTP_URL`, e.g. `smtps://user:pass@mail.example.com`). */
export class SmtpMailAdapter implements MailPort, OnApplicationShutdown {
  private readonly logger = new Logger('Mail');
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    this.transport = createTransport(smtpUrl);
  }

  async send(message: MailMessage): Promise<void> {
    await this.transport.sendMail({
      from: this.from,
      to: message.to,
      subject: message.subject,
      // Base64 keeps long links (and their tokens) intact instead of quoted-printable soft breaks.
      text: message.text,
      html: message.html,
      textEncoding: 'base64',
    });
    const link = message.link ? ` ${redactLink(message.link)}` : '';
    this.logger.log(`mail sent to ${message.to}: ${message.subject}${link}`);
  }

  onApplicationShutdown(): void {
    this.transport.close();
  }
}
