import { Module } from '@nestjs/common';

/** Reading and searching the audit log. */
@Module({})
export class AdminAuditLogsModule {}
