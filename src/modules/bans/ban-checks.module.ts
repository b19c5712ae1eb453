import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BanChecks } from './ban-checks.service';
import { EmailBanEntity } from './email-ban.entity';
import { IpBanEntity } from './ip-ban.entity';
import { IpBanGate } from './ip-ban-gate';
import { PhoneBanEntity } from './phone-ban.entity';

/**
 * Ban lists and their enforcement: the checks auth (and SMS, later) call, and the IP gate that
 * app.setup.ts installs ahead of the body parsers. Low in the module graph (next to audit), so
 * every domain module can use it; the admin module manages the lists.
 */
@Module({
  imports: [TypeOrmModule.forFeature([EmailBanEntity, IpBanEntity, PhoneBanEntity])],
  providers: [BanChecks, IpBanGate],
  exports: [BanChecks, IpBanGate, TypeOrmModule],
})
export class BanChecksModule {}
