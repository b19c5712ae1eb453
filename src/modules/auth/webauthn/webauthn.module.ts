import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../../audit/audit.module';
import { UsersModule } from '../../users/users.module';
import { AuthModule } from '../auth.module';
import { WebAuthnChallengeEntity } from './webauthn-challenge.entity';
import { WebAuthnCredentialEntity } from './webauthn-credential.entity';
import { WebAuthnCredentialsController, WebAuthnLoginController } from './webauthn.controller';
import { WebAuthnService } from './webauthn.service';

/** WebAuthn: credentials, the MFA factor, and passwordless passkeys. */
@Module({
  imports: [
    AuthModule,
    UsersModule,
    AuditModule,
    TypeOrmModule.forFeature([WebAuthnCredentialEntity, WebAuthnChallengeEntity]),
  ],
  controllers: [WebAuthnCredentialsController, WebAuthnLoginController],
  providers: [WebAuthnService],
})
export class WebAuthnModule {}
