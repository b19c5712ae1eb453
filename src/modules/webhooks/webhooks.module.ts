import { WebhooksMaintenance } from './webhooks-maintenance';
import { WebhooksDiscovery } from './webhooks-discovery';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StorageModule } from '../../infra/storage/storage.module';
import { AuditModule } from '../audit/audit.module';
import { GuildsModule } from '../guilds/guilds.module';
import { InteractionsModule } from '../interactions/interactions.module';
import { UsersModule } from '../users/users.module';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEntity } from './webhook.entity';
import { WebhookExecuteController } from './webhook-execute.controller';
import { WebhookExecutionService } from './webhook-execution.service';
import { WebhookTokenCache } from './webhook-token-cache';
import { WebhookCredentials } from './webhook-credentials';
import { DeliveryParser } from './delivery-parser';
import { WebhooksController } from './webhooks.controller';
import { WebhookFileIntake } from './webhook-file-intake';
import { WebhooksService } from './webhooks.service';

@Module({
  imports: [
    UsersModule,
    GuildsModule,
    InteractionsModule,
    AuditModule,
    StorageModule,
    TypeOrmModule.forFeature([WebhookEntity, WebhookDeliveryEntity]),
  ],
  controllers: [WebhooksController, WebhookExecuteController],
  providers: [
    WebhooksMaintenance,
    WebhooksDiscovery,
    WebhooksService,
    WebhookExecutionService,
    WebhookTokenCache,
    WebhookCredentials,
    DeliveryParser,
    WebhookFileIntake,
  ],
  exports: [WebhooksService],
})
export class WebhooksModule {}
