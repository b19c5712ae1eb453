import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditLogEntryEntity } from './audit-log.entity';
import { AuditLog } from './audit-log.service';

/**
 * The audit log writer. It sits below every domain module (auth, oauth2, guilds, webhooks, admin)
 * so each can record its security events in its own transactions; reading and searching the log
 * is the admin module's job.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AuditLogEntryEntity])],
  providers: [AuditLog],
  exports: [AuditLog, TypeOrmModule],
})
export class AuditModule {}
