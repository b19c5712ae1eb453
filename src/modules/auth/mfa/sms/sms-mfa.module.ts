import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SmsModule } from '../../../../infra/sms/sms.module';
import { AuditModule } from '../../../audit/audit.module';
import { BanChecksModule } from '../../../bans/ban-checks.module';
import { UsersModule } from '../../../users/users.module';
import { AuthModule } from '../../auth.module';
import { MfaSmsCodeEntity } from './mfa-sms-code.entity';
import { SmsEnrolmentController, SmsLoginController } from './sms-mfa.controller';
import { SmsMfaService } from './sms-mfa.service';

/** SMS second factor: phone verification, SMS MFA enable/disable and the login step. */
@Module({
  imports: [
    AuthModule,
    UsersModule,
    AuditModule,
    BanChecksModule,
    SmsModule,
    TypeOrmModule.forFeature([MfaSmsCodeEntity]),
  ],
  controllers: [SmsEnrolmentController, SmsLoginController],
  providers: [SmsMfaService],
})
export class SmsMfaModule {}
