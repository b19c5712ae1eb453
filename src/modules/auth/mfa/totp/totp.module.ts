import { Module } from '@nestjs/common';

/** TOTP second factor and backup codes: enrolment under /users/@me/mfa and the login step. */
@Module({})
export class TotpModule {}
