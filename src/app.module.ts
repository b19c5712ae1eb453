import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AdminAclGuard } from './common/auth/admin-acl.guard';
import { BearerGuard } from './common/auth/bearer.guard';
import { CallerGuard } from './common/auth/caller.guard';
import { RouteAccessGuard } from './common/auth/route-access.guard';
import { CommonModule } from './common/common.module';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { HttpPlatform } from './common/http/platform/http-platform';
import { HttpPlatformModule } from './common/http/platform/http-platform.module';
import { BodyReader } from './common/http/body-reader';
import { RequestGate } from './common/http/request-gate.guard';
import { ParleyThrottlerGuard } from './common/rate-limit/parley-throttler.guard';
import { RateLimitModule } from './common/rate-limit/rate-limit.module';
import { AppConfig } from './config/app.config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule, DatabaseModuleOptions } from './database/database.module';
import { EventsModule } from './infra/events/events.module';
import { MetricsModule } from './infra/metrics/metrics.module';
import { GatewayModule } from './modules/gateway/gateway.module';
import { MembersModule } from './modules/members/members.module';
import { RolesModule } from './modules/roles/roles.module';
import { GuildBansModule } from './modules/guild-bans/guild-bans.module';
import { ApplicationCommandsModule } from './modules/application-commands/application-commands.module';
import { RedisModule } from './infra/redis/redis.module';
import { HealthModule } from './modules/health/health.module';
import { InstanceModule } from './modules/instance/instance.module';
import { AuthModule } from './modules/auth/auth.module';
import { UsersModule } from './modules/users/users.module';
import { GuildsModule } from './modules/guilds/guilds.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';
import { InteractionsModule } from './modules/interactions/interactions.module';
import { OAuth2Module } from './modules/oauth2/oauth2.module';
import { AuditModule } from './modules/audit/audit.module';
import { BanChecksModule } from './modules/bans/ban-checks.module';
import { AdminModule } from './modules/admin/admin.module';
import { TotpModule } from './modules/auth/mfa/totp/totp.module';
import { SmsMfaModule } from './modules/auth/mfa/sms/sms-mfa.module';
import { WebAuthnModule } from './modules/auth/webauthn/webauthn.module';
import { SsoModule } from './modules/auth/sso/sso.module';

/** The domain modules, in dependency order. */
const DOMAIN_MODULES = [
  InstanceModule,
  HealthModule,
  AuditModule,
  BanChecksModule,
  UsersModule,
  AuthModule,
  // Second factors and single sign-on sit on top of the accounts module (they import it).
  TotpModule,
  SmsMfaModule,
  WebAuthnModule,
  SsoModule,
  GuildsModule,
  InteractionsModule,
  WebhooksModule,
  OAuth2Module,
  AdminModule,
  GatewayModule,
  MembersModule,
  RolesModule,
  GuildBansModule,
  ApplicationCommandsModule,
];

@Module({})
export class AppModule {
  static forRoot(
    config: AppConfig,
    db: DatabaseModuleOptions,
    extra: Array<Type | DynamicModule>,
    platform: HttpPlatform,
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        HttpPlatformModule.forRoot(platform),
        MetricsModule,
        CommonModule,
        RedisModule,
        RateLimitModule,
        DatabaseModule.forRoot(db),
        EventsModule,
        ...DOMAIN_MODULES,
        ...extra,
      ],
      providers: [
        // Caller, rate limits, access, then the body: in this order, in one guard (request-gate.guard.ts).
        CallerGuard,
        ParleyThrottlerGuard,
        RouteAccessGuard,
        // RouteAccessGuard's two checks, one per kind of route (the design card's guard names).
        AdminAclGuard,
        BearerGuard,
        BodyReader,
        { provide: APP_GUARD, useClass: RequestGate },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        // The HTTP adapter's own providers (common/http/platform).
        ...platform.providers(),
      ],
    };
  }
}
