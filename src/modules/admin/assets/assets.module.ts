import { Module } from '@nestjs/common';
import { StorageModule } from '../../../infra/storage/storage.module';
import { AuditModule } from '../../audit/audit.module';
import { AssetsController } from './assets.controller';
import { AssetPurgeService } from './asset-purge.service';

/** Guild asset purge. */
import { GuildsModule } from '../../guilds/guilds.module';
import { WebhooksModule } from '../../webhooks/webhooks.module';

@Module({
  imports: [StorageModule, AuditModule, GuildsModule, WebhooksModule],
  controllers: [AssetsController],
  providers: [AssetPurgeService],
})
export class AssetsModule {}
