import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import type { SessionCaller } from '../../common/auth/caller';
import { randomToken, sha256 } from '../../common/crypto/tokens';
import { ApiError, type FieldError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { parseSnowflake } from '../../common/snowflake/snowflake';
import type { AuditContext } from '../audit/audit-context';
import { AuditLog } from '../audit/audit-log.service';
import type { ReauthProof } from '../auth/mfa/dto/reauth.dto';
import { ReauthService } from '../auth/mfa/reauth.service';
import { UsersService } from '../users/users.service';
import { slugifyUsername } from '../users/username-slug';
import { ApplicationEntity } from './application.entity';
import { ApplicationKeys } from './application-keys';
import { BOT_GUILD_INSTALLER, type BotGuildInstaller } from './bot-guild-installer.port';
import {
  toApplication,
  toApplicationBot,
  toApplicationPublic,
  toApplicationsMe,
  toDiscordApplication,
} from './application.mapper';
import type {
  ApplicationPublicResponse,
  ApplicationResponse,
  ApplicationsMeResponse,
  BotTokenResetResponse,
  DiscordApplicationResponse,
} from './application.response';
import type {
  ApplicationCreateDto,
  ApplicationUpdateDto,
  CurrentApplicationUpdateDto,
} from './dto/application.dto';
import { InteractionsEndpointSetting } from './interactions-endpoint/interactions-endpoint-setting';
import { redirectUriErrors } from './redirect-uris';
import { OWNER_SETTABLE_APPLICATION_FLAGS } from './application-flags';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { CHANGES_CHANNEL, DatabaseNotifications } from '../../database/notifications';
import { TaggedCache } from '../../common/cache/tagged-cache';

/** Only the gateway intent flags are the owner's (or the bot's) to set. */
function flagsErrors(flags: number | undefined): FieldError[] {
  if (flags == null || (flags & ~OWNER_SETTABLE_APPLICATION_FLAGS) === 0) return [];
  return [
    {
      path: 'flags',
      code: FieldErrorCode.BaseTypeChoices,
      message:
        'Only GATEWAY_GUILD_MEMBERS_LIMITED (32768) and GATEWAY_MESSAGE_CONTENT_LIMITED (524288) may be set.',
    },
  ];
}

/** `<application_id>.<secret>`: the secret is what is hashed and stored. */
export function newBotToken(applicationId: string): { token: string; hash: Buffer } {
  const secret = randomToken(32);
  return { token: `${applicationId}.${secret}`, hash: sha256(secret) };
}

/** Applications: CRUD for their owner, secrets shown once, the bot user created alongside. */
@Injectable()
export class ApplicationsService implements OnModuleInit {
  /** Applications as last committed, for read-only hot paths; any change drops them (`a:<id>`). */
  private readonly cached = new TaggedCache<Readonly<ApplicationEntity>>(10_000, 5 * 60_000);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectRepository(ApplicationEntity) private readonly apps: Repository<ApplicationEntity>,
    private readonly users: UsersService,
    private readonly reauth: ReauthService,
    private readonly snowflakes: SnowflakeService,
    private readonly notifications: DatabaseNotifications,
    private readonly audit: AuditLog,
    @Inject(BOT_GUILD_INSTALLER) private readonly installer: BotGuildInstaller,
    private readonly keys: ApplicationKeys,
    private readonly endpointSetting: InteractionsEndpointSetting,
  ) {}

  onModuleInit(): void {
    this.notifications.invalidateOnChange(this.cached, 'a:');
  }

  /** The application, read-only, from memory when possible (never mutate the result). */
  async findCached(id: string): Promise<Readonly<ApplicationEntity> | null> {
    const hit = this.cached.get(id);
    if (hit) return hit;
    const generation = this.cached.currentGeneration;
    const app = await this.find(id);
    if (app) this.cached.set(id, Object.freeze(app), [`a:${app.id}`], generation);
    return app;
  }

  /**
   * This process's caches (client authentication, bot tokens, introspection) drop the
   * application at once; the database trigger tells every instance.
   */
  private changed(appId: string): void {
    this.notifications.publishLocal(CHANGES_CHANNEL, `a:${appId}`);
  }

  /** The application by id, or null (ids that are not snowflakes are simply unknown). */
  async find(id: unknown, manager?: EntityManager): Promise<ApplicationEntity | null> {
    const sid = parseSnowflake(id);
    if (!sid) return null;
    const repo = manager ? manager.getRepository(ApplicationEntity) : this.apps;
    return repo.findOneBy({ id: sid });
  }

  /** The caller's application; someone else's is as unknown as a missing one. */
  async getOwned(ownerId: string, id: string, manager?: EntityManager): Promise<ApplicationEntity> {
    const app = await this.find(id, manager);
    if (!app || app.ownerId !== ownerId) throw new ApiError(ErrorCode.UnknownApplication);
    return app;
  }

  async create(ownerId: string, dto: ApplicationCreateDto): Promise<ApplicationResponse> {
    const errors = redirectUriErrors(dto.redirect_uris);
    if (errors.length) throw ApiError.form(errors);
    const clientSecret = randomToken(32);
    return this.db.transaction(async (m) => {
      const created = await this.users.create(
        { username: slugifyUsername(dto.name, { lowercase: false, fallback: 'bot' }), bot: true },
        m,
      );
      // Re-read so that column defaults (avatar, bio, …) are present in the response.
      const bot = await this.users.getById(created.id, m);
      const id = this.snowflakes.next();
      const botToken = newBotToken(id);
      const { verifyKey, signingKeyEncrypted } = this.keys.newKeyPair();
      const app = m.getRepository(ApplicationEntity).create({
        id,
        ownerId,
        botUserId: bot.id,
        name: dto.name,
        description: null,
        icon: null,
        redirectUris: dto.redirect_uris ?? [],
        botPublic: dto.bot_public ?? true,
        botRequireCodeGrant: dto.bot_require_code_grant ?? false,
        flags: 0,
        botFlags: 0,
        clientSecretHash: sha256(clientSecret),
        botTokenHash: botToken.hash,
        verifyKey,
        signingKeyEncrypted,
        interactionsEndpointUrl: null,
        createdAt: new Date(),
      });
      await m.getRepository(ApplicationEntity).insert(app);
      return toApplication(app, bot, { clientSecret, botToken: botToken.token });
    });
  }

  async listOwned(ownerId: string): Promise<ApplicationResponse[]> {
    const rows = await this.apps.find({
      where: { ownerId },
      relations: { botUser: true },
      order: { id: 'ASC' },
      take: 200,
    });
    return rows.map((a) => toApplication(a, a.botUser!));
  }

  async get(ownerId: string, id: string): Promise<ApplicationResponse> {
    const app = await this.getOwned(ownerId, id);
    return toApplication(app, await this.users.getById(app.botUserId));
  }

  async getPublic(id: string): Promise<ApplicationPublicResponse> {
    const app = await this.find(id);
    if (!app) throw new ApiError(ErrorCode.UnknownApplication);
    return toApplicationPublic(app, await this.users.getById(app.botUserId));
  }

  async update(
    ownerId: string,
    id: string,
    dto: ApplicationUpdateDto,
  ): Promise<ApplicationResponse> {
    const errors = [...redirectUriErrors(dto.redirect_uris), ...flagsErrors(dto.flags)];
    if (errors.length) throw ApiError.form(errors);
    const app = await this.getOwned(ownerId, id);
    if (dto.name != null) app.name = dto.name;
    if (dto.bot_public != null) app.botPublic = dto.bot_public;
    if (dto.bot_require_code_grant != null) app.botRequireCodeGrant = dto.bot_require_code_grant;
    if (dto.redirect_uris !== undefined) app.redirectUris = dto.redirect_uris ?? [];
    await this.save(app, dto);
    return toApplication(app, await this.users.getById(app.botUserId));
  }

  /** Discord's "Edit Current Application": the calling bot's description, flags, endpoint URL. */
  async updateForBot(
    applicationId: string,
    dto: CurrentApplicationUpdateDto,
  ): Promise<ApplicationsMeResponse> {
    const errors = flagsErrors(dto.flags);
    if (errors.length) throw ApiError.form(errors);
    const app = await this.find(applicationId);
    if (!app) throw new ApiError(ErrorCode.UnknownApplication);
    if (dto.description !== undefined) app.description = dto.description || null;
    await this.save(app, dto);
    return toApplicationsMe(app, await this.users.getById(app.botUserId));
  }

  /**
   * Writes the changed application, its flags and (verified first, outside any transaction: the
   * check waits on the endpoint) its interactions endpoint URL.
   */
  private async save(
    app: ApplicationEntity,
    dto: { flags?: number; interactions_endpoint_url?: string | null },
  ): Promise<void> {
    const endpoint = await this.endpointSetting.resolve(app, dto.interactions_endpoint_url);
    if (endpoint !== undefined) app.interactionsEndpointUrl = endpoint;
    if (dto.flags != null) app.flags = dto.flags;
    await this.apps.update(
      { id: app.id },
      {
        flags: app.flags,
        name: app.name,
        description: app.description,
        botPublic: app.botPublic,
        botRequireCodeGrant: app.botRequireCodeGrant,
        redirectUris: app.redirectUris,
        interactionsEndpointUrl: app.interactionsEndpointUrl,
      },
    );
    this.changed(app.id);
  }

  /**
   * Deletes the application (its codes, grants, tokens and authorizations cascade) and its bot.
   * Needs a re-authentication proof unless this session proved one in the last 5 minutes.
   */
  async delete(
    caller: SessionCaller,
    id: string,
    proof: ReauthProof,
    context: AuditContext,
  ): Promise<void> {
    await this.getOwned(caller.userId, id);
    const confirmedWith = await this.reauth.confirm(caller, proof, {
      allowRecent: true,
      purpose: 'delete the application',
    });
    await this.db.transaction(async (m) => {
      const app = await this.getOwned(caller.userId, id, m);
      await this.audit.record(m, {
        ...context,
        action: 'oauth2.application.delete',
        targetType: 'oauth2_application',
        targetId: app.id,
        metadata: { confirmed_with: confirmedWith, bot_user_id: app.botUserId },
      });
      // The bot leaves its guilds first (events to the guilds and its sessions), then the rows go.
      await this.installer.uninstallEverywhere(app.botUserId, m);
      await m.getRepository(ApplicationEntity).delete({ id: app.id });
      await this.users.remove(m, app.botUserId);
      this.changed(app.id);
    });
  }

  /**
   * New client secret, shown once. Needs a re-authentication proof (the password, or a second
   * factor) unless this session proved one in the last 5 minutes.
   */
  async resetClientSecret(
    caller: SessionCaller,
    id: string,
    proof: ReauthProof,
    context: AuditContext,
  ): Promise<ApplicationResponse> {
    const app = await this.getOwned(caller.userId, id);
    const confirmedWith = await this.reauth.confirm(caller, proof, {
      allowRecent: true,
      purpose: 'reset the client secret',
    });
    const clientSecret = randomToken(32);
    await this.db.transaction(async (m) => {
      await m.update(ApplicationEntity, { id: app.id }, { clientSecretHash: sha256(clientSecret) });
      await this.audit.record(m, {
        ...context,
        action: 'oauth2.client_secret.reset',
        targetType: 'oauth2_application',
        targetId: app.id,
        metadata: { confirmed_with: confirmedWith },
      });
    });
    this.changed(app.id);
    return toApplication(app, await this.users.getById(app.botUserId), { clientSecret });
  }

  /**
   * New bot token; the old one stops working with the next request (one indexed lookup). Needs a
   * re-authentication proof unless this session proved one in the last 5 minutes.
   */
  async resetBotToken(
    caller: SessionCaller,
    id: string,
    proof: ReauthProof,
    context: AuditContext,
  ): Promise<BotTokenResetResponse> {
    const app = await this.getOwned(caller.userId, id);
    const confirmedWith = await this.reauth.confirm(caller, proof, {
      allowRecent: true,
      purpose: 'reset the bot token',
    });
    const botToken = newBotToken(app.id);
    await this.db.transaction(async (m) => {
      await m.update(ApplicationEntity, { id: app.id }, { botTokenHash: botToken.hash });
      await this.audit.record(m, {
        ...context,
        action: 'oauth2.bot_token.reset',
        targetType: 'oauth2_application',
        targetId: app.id,
        metadata: { bot_user_id: app.botUserId, confirmed_with: confirmedWith },
      });
    });
    this.changed(app.id);
    const bot = await this.users.getById(app.botUserId);
    return { token: botToken.token, bot: toApplicationBot(app, bot, botToken.token) };
  }

  /** Discord's application object of the calling bot's application. */
  async getDiscordApplication(applicationId: string): Promise<DiscordApplicationResponse> {
    const app = await this.find(applicationId);
    if (!app) throw new ApiError(ErrorCode.UnknownApplication);
    const [owner, bot, verifyKey] = await Promise.all([
      this.users.getById(app.ownerId),
      this.users.getById(app.botUserId),
      this.keys.verifyKeyOf(app),
    ]);
    return toDiscordApplication(app, { owner, bot, verifyKey });
  }

  async getForBot(applicationId: string): Promise<ApplicationsMeResponse> {
    const app = await this.find(applicationId);
    if (!app) throw new ApiError(ErrorCode.UnknownApplication);
    return toApplicationsMe(app, await this.users.getById(app.botUserId));
  }
}
