import { Module } from '@nestjs/common';
import { StorageModule } from '../../../infra/storage/storage.module';
import { AuditModule } from '../../audit/audit.module';
import { AssetsController } from './assets.controller';
import { AssetPurgeService } from './asset-purge.service';

/** Guild asset purge. */
@Module({
  imports: [StorageModule, AuditModule],
  controllers: [AssetsController],
  providers: [AssetPurgeService],
})
export class AssetsModule {}
