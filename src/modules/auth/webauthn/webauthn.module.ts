import { Module } from '@nestjs/common';

/** WebAuthn credentials: enrolment, the MFA login step and passwordless passkeys. */
@Module({})
export class WebAuthnModule {}
