import { Module } from '@nestjs/common';
import { AdminApiKeysModule } from './api-keys/admin-api-keys.module';
import { ArchivesModule } from './archives/archives.module';
import { AssetsModule } from './assets/assets.module';
import { AdminAttachmentsModule } from './attachments/attachments.module';
import { AdminAuditLogsModule } from './audit-logs/admin-audit-logs.module';
import { BansModule } from './bans/bans.module';
import { BulkModule } from './bulk/bulk.module';
import { AdminSsoModule } from './sso/admin-sso.module';

/** The admin API (`/v1/admin/*`, `Admin <key>` credentials): the top of the module graph. */
@Module({
  imports: [
    AdminApiKeysModule,
    AdminAuditLogsModule,
    BansModule,
    ArchivesModule,
    AssetsModule,
    AdminAttachmentsModule,
    BulkModule,
    AdminSsoModule,
  ],
})
export class AdminModule {}
