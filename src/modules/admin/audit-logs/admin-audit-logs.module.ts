import { Module } from '@nestjs/common';
import { AuditModule } from '../../audit/audit.module';
import { AdminAuditLogsController } from './audit-logs.controller';
import { AdminAuditLogsService } from './audit-logs.service';

/** Reading and searching the audit log (`audit_log:view`). */
@Module({
  imports: [AuditModule],
  controllers: [AdminAuditLogsController],
  providers: [AdminAuditLogsService],
})
export class AdminAuditLogsModule {}
