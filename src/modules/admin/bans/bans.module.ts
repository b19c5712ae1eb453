import { Module } from '@nestjs/common';
import { AuditModule } from '../../audit/audit.module';
import { BanChecksModule } from '../../bans/ban-checks.module';
import { AdminBansController } from './bans.controller';
import { AdminBansService } from './bans.service';
import { ReverseDns } from './reverse-dns';

/**
 * IP, e-mail and phone bans (admin routes `/admin/bans/…`). Enforcement is the bans module's
 * (BanChecks for e-mail and phone, IpBanGate for every request).
 */
@Module({
  imports: [AuditModule, BanChecksModule],
  controllers: [AdminBansController],
  providers: [AdminBansService, ReverseDns],
})
export class BansModule {}
