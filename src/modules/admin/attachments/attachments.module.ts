import { Module } from '@nestjs/common';
import { AuditModule } from '../../audit/audit.module';
import { GuildsModule } from '../../guilds/guilds.module';
import { AttachmentPurgesService } from './attachment-purges.service';
import { AdminAttachmentsController } from './attachments.controller';

/** Attachment purges: a user's uploads or a guild's files. */
@Module({
  imports: [AuditModule, GuildsModule],
  controllers: [AdminAttachmentsController],
  providers: [AttachmentPurgesService],
})
export class AdminAttachmentsModule {}
