import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { SessionCaller } from '../../common/auth/caller';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { AppConfig } from '../../config/app.config';
import { SessionEntity } from '../auth/session.entity';
import { ApplicationsService } from './applications.service';
import { BOT_GUILD_INSTALLER, type BotGuildInstaller } from './bot-guild-installer.port';
import type { AuthorizeConsentDto } from './dto/oauth2.dto';
import { OAuth2AuthorizationEntity } from './oauth2-authorization.entity';
import type { OAuth2AuthorizationResponse, OAuth2ConsentResponse } from './oauth2.response';
import { OAuth2TokensService } from './oauth2-tokens.service';
import { parseScopes } from './scopes';

const MAX_PERMISSIONS = (1n << 63n) - 1n;

/** The user's "Authorize" click: validates the request, installs the bot, issues the code. */
@Injectable()
export class ConsentService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly apps: ApplicationsService,
    private readonly tokens: OAuth2TokensService,
    private readonly snowflakes: SnowflakeService,
    private readonly config: AppConfig,
    @Inject(BOT_GUILD_INSTALLER) private readonly installer: BotGuildInstaller,
  ) {}

  async consent(caller: SessionCaller, dto: AuthorizeConsentDto): Promise<OAuth2ConsentResponse> {
    const userId = caller.userId;
    const app = await this.apps.find(dto.client_id);
    if (!app) throw ApiError.field('client_id', FieldErrorCode.UnknownApplication);
    const scopes = parseScopes(dto.scope);
    if (!scopes) {
      throw ApiError.field('scope', FieldErrorCode.InvalidScope);
    }
    const botOnly = scopes.length === 1 && scopes[0] === 'bot';
    if (dto.redirect_uri !== undefined) {
      if (!app.redirectUris.includes(dto.redirect_uri)) {
        throw ApiError.field('redirect_uri', FieldErrorCode.RedirectUriMismatch);
      }
    } else if (!botOnly || app.botRequireCodeGrant) {
      throw ApiError.field(
        'redirect_uri',
        FieldErrorCode.BaseTypeRequired,
        'redirect_uri is required.',
      );
    }
    if (dto.code_challenge_method !== undefined && dto.code_challenge === undefined) {
      throw ApiError.field(
        'code_challenge',
        FieldErrorCode.BaseTypeRequired,
        'code_challenge is required.',
      );
    }
    if (dto.code_challenge !== undefined && dto.code_challenge_method === undefined) {
      // RFC 7636 defaults a missing method to "plain", which we refuse.
      throw ApiError.field('code_challenge_method', FieldErrorCode.CodeChallengeMethodUnsupported);
    }
    if (scopes.includes('bot') && !app.botPublic && app.ownerId !== userId) {
      throw new ApiError(ErrorCode.AccessDenied, 'Only the owner may add this private bot.');
    }
    const install = dto.guild_id !== undefined ? this.botInstall(scopes, dto) : null;
    if (!install && dto.permissions !== undefined) {
      throw ApiError.field(
        'guild_id',
        FieldErrorCode.BaseTypeRequired,
        'permissions need a guild_id.',
      );
    }

    // One transaction: the bot stays in the guild only if the authorization and code are recorded.
    return this.db.transaction(async (m) => {
      if (install) {
        await this.installer.install(
          userId,
          install.guildId,
          app.botUserId,
          install.permissions,
          m,
        );
      }
      await this.recordAuthorization(m, userId, app.id, scopes);
      if (dto.redirect_uri === undefined) {
        return { redirect_to: `${this.config.webAppUrl}/oauth2/authorized` };
      }
      const code = await this.tokens.createCode(m, {
        applicationId: app.id,
        userId,
        scopes,
        redirectUri: dto.redirect_uri,
        codeChallenge: dto.code_challenge ?? null,
        nonce: dto.nonce ?? null,
        authTime: await this.authTime(m, caller.sessionId),
      });
      const url = new URL(dto.redirect_uri);
      url.searchParams.set('code', code);
      if (dto.state !== undefined) url.searchParams.set('state', dto.state);
      return { redirect_to: url.toString() };
    });
  }

  /**
   * OpenID Connect `auth_time`: when the session's holder last proved a credential (the login,
   * or a later re-authentication); a session handed to another device counts from its creation.
   */
  private async authTime(m: EntityManager, sessionId: string): Promise<Date> {
    const session = await m.getRepository(SessionEntity).findOne({
      where: { id: sessionId },
      select: { id: true, createdAt: true, provenAt: true },
    });
    return session?.provenAt ?? session?.createdAt ?? new Date();
  }

  /** Checks a `guild_id` consent's bot scope and permissions before anything is written. */
  private botInstall(
    scopes: string[],
    dto: AuthorizeConsentDto,
  ): { guildId: string; permissions: bigint } {
    if (!scopes.includes('bot')) {
      throw ApiError.field('guild_id', FieldErrorCode.BotScopeRequired);
    }
    const permissions = BigInt(dto.permissions ?? '0');
    if (permissions > MAX_PERMISSIONS) {
      throw ApiError.field('permissions', FieldErrorCode.PermissionsInvalid);
    }
    return { guildId: dto.guild_id!, permissions };
  }

  private async recordAuthorization(
    m: EntityManager,
    userId: string,
    applicationId: string,
    scopes: string[],
  ): Promise<void> {
    // Upsert: a later consent widens the recorded scopes and refreshes authorized_at.
    await m.query(
      `INSERT INTO oauth2_authorizations (id, user_id, application_id, scopes, authorized_at)
       VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (user_id, application_id) DO UPDATE
         SET scopes = ARRAY(SELECT DISTINCT unnest(oauth2_authorizations.scopes || EXCLUDED.scopes) ORDER BY 1),
             authorized_at = now()`,
      [this.snowflakes.next(), userId, applicationId, scopes],
    );
  }

  async listAuthorizations(userId: string): Promise<OAuth2AuthorizationResponse[]> {
    const rows = await this.db.getRepository(OAuth2AuthorizationEntity).find({
      where: { userId },
      relations: { application: true },
      order: { authorizedAt: 'DESC' },
      take: 200,
    });
    return rows.map((r) => ({
      application: {
        id: r.application!.id,
        name: r.application!.name,
        description: r.application!.description,
        icon: r.application!.icon,
        bot_public: r.application!.botPublic,
      },
      scopes: r.scopes,
      authorized_at: r.authorizedAt.toISOString(),
    }));
  }

  /** Removes an authorization and revokes every token the user gave that application. */
  async deauthorize(userId: string, applicationId: string): Promise<void> {
    const app = await this.apps.find(applicationId);
    if (!app) throw new ApiError(ErrorCode.UnknownApplication);
    await this.db.transaction(async (m) => {
      const res = await m
        .getRepository(OAuth2AuthorizationEntity)
        .delete({ userId, applicationId: app.id });
      if (!res.affected) throw new ApiError(ErrorCode.UnknownApplication);
      await this.tokens.revokeForUserAndApp(m, userId, app.id);
    });
  }
}
