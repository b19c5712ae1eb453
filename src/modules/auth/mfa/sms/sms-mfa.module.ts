import { Module } from '@nestjs/common';

/** Phone verification and the SMS second factor: enrolment under /users/@me/mfa and the login steps. */
@Module({})
export class SmsMfaModule {}
