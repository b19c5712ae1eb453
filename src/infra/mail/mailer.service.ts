import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/app.config';
import { renderMail, type MailTemplate } from './mail-templates';
import { MAIL_PORT, type MailPort } from './mail.port';

/**
 * Renders and sends. Sending is not awaited by the request: a slow or failing SMTP server must
 * neither stall the answer nor reveal (by timing) whether an address exists.
 */
@Injectable()
export class MailerService {
  private readonly logger = new Logger('Mail');

  constructor(
    @Inject(MAIL_PORT) private readonly port: MailPort,
    private readonly config: AppConfig,
  ) {}

  sendLater(
    to: string,
    template: MailTemplate,
    token: string,
    details: { username?: string; lines?: string[] } = {},
  ): void {
    const mail = renderMail(template, this.config.webAppUrl, token, details);
    this.port
      .send({ to, ...mail })
      .catch((err: Error) => this.logger.error(`could not send ${template} mail: ${err.message}`));
  }
}
