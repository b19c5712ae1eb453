import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../../../infra/jobs/jobs.module';
import { StorageModule } from '../../../infra/storage/storage.module';
import { AuditModule } from '../../audit/audit.module';
import { ArchiveBuilder } from './archive-builder';
import { ArchiveDownloadController } from './archive-download.controller';
import { ArchiveLinks } from './archive-links';
import { ArchiveEntity } from './archive.entity';
import { ArchivesController } from './archives.controller';
import { ArchivesMaintenance } from './archives-maintenance';
import { ArchivesService } from './archives.service';

/** User and guild data archives: zips built by a pg-boss job, downloaded through signed links. */
@Module({
  imports: [TypeOrmModule.forFeature([ArchiveEntity]), AuditModule, JobsModule, StorageModule],
  controllers: [ArchivesController, ArchiveDownloadController],
  providers: [ArchivesService, ArchiveBuilder, ArchiveLinks, ArchivesMaintenance],
})
export class ArchivesModule {}
