import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app.config';
import { LogMailAdapter } from './log-mail.adapter';
import { MAIL_PORT, type MailPort } from './mail.port';
import { MailerService } from './mailer.service';
import { SmtpMailAdapter } from './smtp-mail.adapter';

/** Outgoing mail (import where needed): SMTP when `SMTP_URL` is set, otherwise the log adapter (ARCHITECTURE.md §9). */
@Module({
  providers: [
    LogMailAdapter,
    {
      provide: MAIL_PORT,
      inject: [AppConfig, LogMailAdapter],
      useFactory: (config: AppConfig, log: LogMailAdapter): MailPort =>
        config.mail.smtpUrl ? new SmtpMailAdapter(config.mail.smtpUrl, config.mail.from) : log,
    },
    MailerService,
  ],
  exports: [MAIL_PORT, LogMailAdapter, MailerService],
})
export class MailModule {}
