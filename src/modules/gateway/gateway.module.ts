import { Module, type OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { ServiceDiscoveryRegistry } from '../../common/discovery/service-discovery.registry';
import { AppConfig } from '../../config/app.config';
import { REDIS } from '../../infra/redis/redis.module';
import { BanChecksModule } from '../bans/ban-checks.module';
import { GuildsModule } from '../guilds/guilds.module';
import { OAuth2Module } from '../oauth2/oauth2.module';
import { UsersModule } from '../users/users.module';
import { Checkpointer } from './checkpointer';
import { FrameRouter } from './frame-router';
import { GatewayAuthenticator } from './gateway-authenticator';
import { GatewayDispatcher } from './gateway-dispatcher';
import { GatewayLimits } from './gateway-limits';
import { GatewayUpgrade } from './gateway-upgrade';
import { GatewayController } from './gateway.controller';
import { GatewayServer } from './gateway.server';
import { MemorySessionStore } from './memory-session-store';
import { HeartbeatHandler } from './opcodes/heartbeat.handler';
import { IdentifyHandler } from './opcodes/identify.handler';
import { RequestGuildMembersHandler } from './opcodes/request-guild-members.handler';
import { ResumeHandler } from './opcodes/resume.handler';
import { RedisSessionStore } from './redis-session-store';
import { SessionGuard } from './session-guard';
import { SessionRegistry } from './session-registry';
import { SessionStore } from './session-store';
import { MemoryPresenceStore, PresenceStore, RedisPresenceStore } from './presence-store';
import { PresenceService } from './presence.service';

/**
 * The real-time gateway (ARCHITECTURE.md §7): the upgrade and its admission (GatewayUpgrade), the
 * state of this instance's connections and sessions (SessionRegistry), one handler per opcode
 * (opcodes/, through FrameRouter), events routed from the log (GatewayDispatcher), sessions kept
 * for resuming (SessionStore, Checkpointer), revocations (SessionGuard), and the REST routes
 * that tell clients where it is.
 */
@Module({
  imports: [GuildsModule, BanChecksModule, OAuth2Module, UsersModule],
  controllers: [GatewayController],
  providers: [
    GatewayServer,
    GatewayUpgrade,
    SessionRegistry,
    FrameRouter,
    HeartbeatHandler,
    IdentifyHandler,
    ResumeHandler,
    RequestGuildMembersHandler,
    GatewayDispatcher,
    GatewayAuthenticator,
    GatewayLimits,
    SessionGuard,
    Checkpointer,
    {
      provide: PresenceStore,
      inject: [REDIS],
      useFactory: (redis: Redis | null): PresenceStore =>
        redis ? new RedisPresenceStore(redis) : new MemoryPresenceStore(),
    },
    PresenceService,
    {
      provide: SessionStore,
      inject: [REDIS],
      useFactory: (redis: Redis | null): SessionStore =>
        redis ? new RedisSessionStore(redis) : new MemorySessionStore(),
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
