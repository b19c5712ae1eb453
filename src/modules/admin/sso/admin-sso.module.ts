import { Module } from '@nestjs/common';
import { SsoModule } from '../../auth/sso/sso.module';
import { AdminSsoController } from './admin-sso.controller';

/** The admin's read of the SSO configuration (`instance:config:view`). */
@Module({
  imports: [SsoModule],
  controllers: [AdminSsoController],
})
export class AdminSsoModule {}
