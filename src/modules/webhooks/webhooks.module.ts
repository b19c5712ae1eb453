import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StorageModule } from '../../infra/storage/storage.module';
import { GuildsModule } from '../guilds/guilds.module';
import { UsersModule } from '../users/users.module';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEntity } from './webhook.entity';

@Module({
  imports: [
    UsersModule,
    GuildsModule,
    StorageModule,
    TypeOrmModule.forFeature([WebhookEntity, WebhookDeliveryEntity]),
  ],
  controllers: [],
  providers: [],
})
export class WebhooksModule {}
