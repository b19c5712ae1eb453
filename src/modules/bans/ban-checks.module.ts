import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BanChecks } from './ban-checks.service';
import { EmailBanEntity } from './email-ban.entity';
import { IpBanEntity } from './ip-ban.entity';
import { IpBanGate } from './ip-ban-gate';
import { PhoneBanEntity } from './phone-ban.entity';

/**
 * Ban lists and their enforcement: the e-mail and phone checks that auth (registration, e-mail
 * change, SSO provisioning) and SMS MFA call, and the IP gate the HTTP platform installs ahead of
 * the body parsers. Low in the module graph (it imports no other module), so every domain module
 * can use it; the admin module manages the lists.
 */
@Module({
  imports: [TypeOrmModule.forFeature([EmailBanEntity, IpBanEntity, PhoneBanEntity])],
  providers: [BanChecks, IpBanGate],
  exports: [BanChecks, IpBanGate, TypeOrmModule],
})
export class BanChecksModule {}
