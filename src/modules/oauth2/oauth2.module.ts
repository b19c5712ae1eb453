import { OAuth2Maintenance } from './oauth2-maintenance';
import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app.config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { SessionEntity } from '../auth/session.entity';
import { GuildsModule } from '../guilds/guilds.module';
import { StorageModule } from '../../infra/storage/storage.module';
import { OutboundModule } from '../../infra/outbound/outbound.module';
import { InteractionEndpointClient } from './interactions-endpoint/interaction-endpoint.client';
import { InteractionsEndpointSetting } from './interactions-endpoint/interactions-endpoint-setting';
import { UsersModule } from '../users/users.module';
import { ApplicationEntity } from './application.entity';
import { ApplicationFlagsReader, CachedApplicationFlags } from './application-flags.port';
import { ApplicationsController } from './applications.controller';
import { ApplicationsService } from './applications.service';
import { ApplicationKeys } from './application-keys';
import { BOT_GUILD_INSTALLER } from './bot-guild-installer.port';
import { BotProfileService } from './bot-profile.service';
import { BotTokenResolver } from './bot-tokens.resolver';
import { ConsentService } from './consent.service';
import { GuildBotInstaller } from './guild-bot-installer';
import { IdTokenService } from './id-token.service';
import { OAuth2AuthorizationEntity } from './oauth2-authorization.entity';
import { OAuth2ClientCredentials } from './oauth2-client-credentials';
import { OAuth2ClientEndpointsService } from './oauth2-client-endpoints.service';
import { OAuth2CodeEntity } from './oauth2-code.entity';
import { OAuth2GrantEntity } from './oauth2-grant.entity';
import { OAuth2MeService } from './oauth2-me.service';
import { OAuth2MetadataController } from './oauth2-metadata.controller';
import { OAuth2MetadataService } from './oauth2-metadata.service';
import { OAuth2TokenController } from './oauth2-token.controller';
import { OAuth2TokenEntity } from './oauth2-token.entity';
import { OAuth2TokensService } from './oauth2-tokens.service';
import { OAuth2Controller } from './oauth2.controller';
import { OidcController } from './oidc.controller';
import { OidcKeyStore } from './oidc-keys';

/**
 * OAuth2 provider: applications and their bots, consent, the token endpoint (codes with PKCE,
 * rotating refresh tokens), introspection, revocation, userinfo and RFC 8414 metadata, and the
 * OpenID Connect provider on top (ID tokens, discovery, JWKS).
 * Guild installs go through the BOT_GUILD_INSTALLER port, bound here to the guilds module.
 */
@Module({
  imports: [
    UsersModule,
    AuthModule,
    AuditModule,
    GuildsModule,
    StorageModule,
    OutboundModule,
    TypeOrmModule.forFeature([
      ApplicationEntity,
      OAuth2AuthorizationEntity,
      OAuth2CodeEntity,
      OAuth2GrantEntity,
      OAuth2TokenEntity,
      SessionEntity,
    ]),
  ],
  controllers: [
    ApplicationsController,
    OAuth2Controller,
    OAuth2TokenController,
    OAuth2MetadataController,
    OidcController,
  ],
  providers: [
    OAuth2Maintenance,
    ApplicationsService,
    ApplicationKeys,
    InteractionEndpointClient,
    InteractionsEndpointSetting,
    BotProfileService,
    BotTokenResolver,
    ConsentService,
    OAuth2ClientEndpointsService,
    OAuth2ClientCredentials,
    OAuth2MeService,
    OAuth2MetadataService,
    OAuth2TokensService,
    IdTokenService,
    {
      // Keys are read (or generated) once at boot; a bad OIDC_* value stops the boot.
      provide: OidcKeyStore,
      inject: [AppConfig],
      useFactory: (config: AppConfig) =>
        OidcKeyStore.load({
          dataDir: config.dataDir,
          signingKey: config.oidc.signingKey,
          previousKeys: config.oidc.previousKeys,
        }),
    },
    { provide: BOT_GUILD_INSTALLER, useClass: GuildBotInstaller },
    { provide: ApplicationFlagsReader, useClass: CachedApplicationFlags },
  ],
  exports: [
    ApplicationsService,
    OAuth2TokensService,
    ApplicationFlagsReader,
    // Delivers interactions to an application's HTTP endpoint (issue 29's interaction lifecycle).
    InteractionEndpointClient,
  ],
})
export class OAuth2Module {}
