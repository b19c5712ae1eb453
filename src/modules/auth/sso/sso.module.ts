import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../../audit/audit.module';
import { BanChecksModule } from '../../bans/ban-checks.module';
import { UsersModule } from '../../users/users.module';
import { AuthModule } from '../auth.module';
import { SsoController } from './sso.controller';
import { SsoIdentityEntity } from './sso-identity.entity';
import { SsoStateEntity } from './sso-state.entity';
import { SsoService } from './sso.service';

/** Single sign-on against one OpenID Connect issuer. */
@Module({
  imports: [
    AuthModule,
    UsersModule,
    AuditModule,
    BanChecksModule,
    TypeOrmModule.forFeature([SsoStateEntity, SsoIdentityEntity]),
  ],
  controllers: [SsoController],
  providers: [SsoService],
  exports: [SsoService],
})
export class SsoModule {}
