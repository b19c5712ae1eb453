import { Module, type OnModuleInit } from '@nestjs/common';
import { ServiceDiscoveryRegistry } from '../../common/discovery/service-discovery.registry';
import { AppConfig } from '../../config/app.config';
import { BanChecksModule } from '../bans/ban-checks.module';
import { GuildsModule } from '../guilds/guilds.module';
import { GatewayController } from './gateway.controller';
import { GatewayDispatcher } from './gateway-dispatcher';
import { GatewayServer } from './gateway.server';
import { IdentifyLimits } from './identify-limits';
import { GATEWAY_SESSION_STORE } from './gateway.tokens';
import { RedisSessionStore } from './session-store';
import type Redis from 'ioredis';
import { REDIS } from '../../infra/redis/redis.module';

/**
 * The real-time gateway: WebSocket sessions at /gateway (GatewayServer), fed with the committed
 * events of every instance (GatewayDispatcher), and the REST routes that tell clients where it is.
 */
@Module({
  imports: [GuildsModule, BanChecksModule],
  controllers: [GatewayController],
  providers: [
    GatewayServer,
    GatewayDispatcher,
    IdentifyLimits,
    {
      provide: GATEWAY_SESSION_STORE,
      inject: [REDIS],
      useFactory: (redis: Redis | null) => (redis ? new RedisSessionStore(redis) : null),
    },
  ],
  exports: [GatewayServer],
})
export class GatewayModule implements OnModuleInit {
  constructor(
    private readonly registry: ServiceDiscoveryRegistry,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.registry.addEndpoints({ gateway: this.config.gateway.url });
  }
}
