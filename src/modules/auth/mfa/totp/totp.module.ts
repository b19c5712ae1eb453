import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../../../audit/audit.module';
import { UsersModule } from '../../../users/users.module';
import { AuthModule } from '../../auth.module';
import { MfaBackupCodeEntity } from './mfa-backup-code.entity';
import { MfaTotpEntity } from './mfa-totp.entity';
import { TotpEnrolmentController, TotpLoginController } from './totp.controller';
import { TotpService } from './totp.service';

/** TOTP second factor and backup codes: enrolment under /users/@me/mfa and the login step. */
@Module({
  imports: [
    AuthModule,
    UsersModule,
    AuditModule,
    TypeOrmModule.forFeature([MfaTotpEntity, MfaBackupCodeEntity]),
  ],
  controllers: [TotpEnrolmentController, TotpLoginController],
  providers: [TotpService],
})
export class TotpModule {}
