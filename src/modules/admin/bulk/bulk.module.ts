import { Module } from '@nestjs/common';
import { AuditModule } from '../../audit/audit.module';
import { GuildsModule } from '../../guilds/guilds.module';
import { BulkController } from './bulk.controller';
import { BulkMembersService } from './bulk-members.service';

/** Bulk operations. */
@Module({
  imports: [AuditModule, GuildsModule],
  controllers: [BulkController],
  providers: [BulkMembersService],
})
export class BulkModule {}
