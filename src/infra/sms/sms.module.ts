import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app.config';
import { LogSmsAdapter } from './log-sms.adapter';
import { SMS_PORT, type SmsPort } from './sms.port';
import { TwilioSmsAdapter } from './twilio-sms.adapter';

/** Outgoing SMS: the Twilio-compatible adapter with `SMS_PROVIDER=twilio`, otherwise the log adapter. */
@Module({
  providers: [
    LogSmsAdapter,
    {
      provide: SMS_PORT,
      inject: [AppConfig, LogSmsAdapter],
      useFactory: (config: AppConfig, log: LogSmsAdapter): SmsPort => {
        if (config.sms.provider !== 'twilio') return log;
        const { baseUrl, accountSid, authToken, from } = config.sms.twilio;
        // AppConfig refuses SMS_PROVIDER=twilio without these.
        return new TwilioSmsAdapter({
          baseUrl,
          accountSid: accountSid as string,
          authToken: authToken as string,
          from: from as string,
        });
      },
    },
  ],
  exports: [SMS_PORT, LogSmsAdapter],
})
export class SmsModule {}
