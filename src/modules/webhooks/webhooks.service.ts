import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import {
  constantTimeEqual,
  decryptSecret,
  encryptSecret,
  randomString,
  sha256,
} from '../../common/crypto/tokens';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { parseSnowflake } from '../../common/snowflake/snowflake';
import { AppConfig } from '../../config/app.config';
import { EventName } from '../../infra/events/realtime-event';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import { AssetStorage } from '../../infra/storage/asset-storage.service';
import type { AuditContext } from '../audit/audit-context';
import { AuditLog } from '../audit/audit-log.service';
import { GuildAccessService } from '../guilds/guild-access.service';
import { hasPermission, Permissions } from '../guilds/permissions';
import { UserEntity } from '../users/user.entity';
import type { CreateWebhookDto } from './dto/create-webhook.dto';
import type { UpdateWebhookDto, UpdateWebhookTokenDto } from './dto/update-webhook.dto';
import { WebhookTokenCache } from './webhook-token-cache';
import { WebhookEntity, WebhookType } from './webhook.entity';
import { toWebhookResponse, toWebhookTokenResponse } from './webhook.mapper';
import type { WebhookResponse, WebhookTokenResponse } from './webhook.response';

export const WEBHOOK_TOKEN_LENGTH = 64;
const TOKEN_RE = /^[A-Za-z0-9]{64}$/;

/**
 * Webhook management. Who may do what: MANAGE_WEBHOOKS in the webhook's guild (owner and
 * ADMINISTRATOR imply it), checked through GuildAccessService; or knowing the token.
 */
@Injectable()
export class WebhooksService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: GuildAccessService,
    private readonly snowflakes: SnowflakeService,
    private readonly assets: AssetStorage,
    private readonly config: AppConfig,
    private readonly cache: WebhookTokenCache,
    private readonly audit: AuditLog,
    private readonly events: RealtimeEvents,
  ) {}

  private token(w: WebhookEntity): string {
    return decryptSecret(this.config.secretKey, w.tokenEncrypted);
  }

  private async withCreators(webhooks: WebhookEntity[]): Promise<WebhookResponse[]> {
    return webhooks.map((w) => toWebhookResponse(w, this.token(w), w.user));
  }

  private listQuery() {
    return this.dataSource
      .getRepository(WebhookEntity)
      .createQueryBuilder('w')
      .leftJoinAndSelect('w.user', 'user')
      .orderBy('w.id', 'ASC');
  }

  /**
   * Locks the channel row and checks the per-channel limit, so concurrent creates (or moves)
   * into one channel cannot exceed it.
   */
  private async reserveSlot(m: EntityManager, channelId: string): Promise<void> {
    await m.query('SELECT id FROM channels WHERE id = $1 FOR UPDATE', [channelId]);
    const rows = await m.query<Array<{ count: number }>>(
      'SELECT COUNT(*)::int AS count FROM webhooks WHERE channel_id = $1',
      [channelId],
    );
    if ((rows[0]?.count ?? 0) >= this.config.limits.maxWebhooksPerChannel) {
      throw new ApiError(ErrorCode.MaxWebhooksPerChannel);
    }
  }

  async create(
    userId: string,
    channelId: string,
    dto: CreateWebhookDto,
    context: AuditContext,
  ): Promise<WebhookResponse> {
    const channel = await this.access.requireChannelPermission(
      userId,
      channelId,
      Permissions.MANAGE_WEBHOOKS,
    );
    const id = this.snowflakes.next();
    const avatar = await this.assets.storeImage('avatars', id, dto.avatar ?? null, 'avatar');
    const token = randomString(WEBHOOK_TOKEN_LENGTH);
    const webhook = await this.dataSource.transaction(async (m) => {
      await this.reserveSlot(m, channelId);
      const w = m.create(WebhookEntity, {
        id,
        type: WebhookType.Incoming,
        guildId: channel.guildId,
        channelId,
        userId,
        name: dto.name.trim() || dto.name,
        avatar,
        tokenHash: sha256(token),
        tokenEncrypted: encryptSecret(this.config.secretKey, token),
        signingSecretEncrypted: null,
        createdAt: new Date(),
      });
      await m.insert(WebhookEntity, w);
      await this.announce(m, w.guildId, [channelId]);
      await this.audit.record(m, {
        ...context,
        action: 'webhook.create',
        targetType: 'webhook',
        targetId: id,
        metadata: { name: w.name, guild_id: w.guildId, channel_id: channelId },
      });
      return w;
    });
    const creator = await this.dataSource.getRepository(UserEntity).findOneBy({ id: userId });
    return toWebhookResponse(webhook, token, creator);
  }

  async listForChannel(userId: string, channelId: string): Promise<WebhookResponse[]> {
    await this.access.requireChannelPermission(userId, channelId, Permissions.MANAGE_WEBHOOKS);
    return this.withCreators(
      await this.listQuery()
        .where('w.channel_id = :channelId', { channelId })
        .take(this.config.limits.maxListLimit)
        .getMany(),
    );
  }

  async listForGuild(userId: string, guildId: string): Promise<WebhookResponse[]> {
    await this.access.requirePermission(userId, guildId, Permissions.MANAGE_WEBHOOKS);
    return this.withCreators(
      await this.listQuery()
        .where('w.guild_id = :guildId', { guildId })
        .take(this.config.limits.maxListLimit)
        .getMany(),
    );
  }

  /** The webhook when the user may manage it: 404 when absent or not in its guild, 403 without MANAGE_WEBHOOKS. */
  private async manageable(userId: string, webhookId: string): Promise<WebhookEntity> {
    const webhook = await this.listQuery().where('w.id = :webhookId', { webhookId }).getOne();
    if (!webhook) throw new ApiError(ErrorCode.UnknownWebhook);
    const access = await this.access.access(userId, webhook.guildId);
    if (!access) throw new ApiError(ErrorCode.UnknownWebhook);
    if (!hasPermission(access.permissions, Permissions.MANAGE_WEBHOOKS)) {
      throw new ApiError(ErrorCode.MissingPermissions);
    }
    return webhook;
  }

  /** The webhook when the token matches (always read from the table, never the cache). */
  private async byToken(webhookId: string, token: string): Promise<WebhookEntity> {
    if (!TOKEN_RE.test(token)) throw new ApiError(ErrorCode.UnknownWebhook);
    const webhook = await this.dataSource.getRepository(WebhookEntity).findOneBy({ id: webhookId });
    if (!webhook || !constantTimeEqual(webhook.tokenHash, sha256(token))) {
      throw new ApiError(ErrorCode.UnknownWebhook);
    }
    return webhook;
  }

  async get(userId: string, webhookId: string): Promise<WebhookResponse> {
    const webhook = await this.manageable(userId, webhookId);
    return toWebhookResponse(webhook, this.token(webhook), webhook.user);
  }

  async getWithToken(webhookId: string, token: string): Promise<WebhookTokenResponse> {
    return toWebhookTokenResponse(await this.byToken(webhookId, token), token);
  }

  /** Managers may also set or clear the inbound signing secret (sealed like the token). */
  async update(
    userId: string,
    webhookId: string,
    dto: UpdateWebhookDto,
    context: AuditContext,
  ): Promise<WebhookResponse> {
    const webhook = await this.manageable(userId, webhookId);
    const target = dto.channel_id !== undefined ? parseSnowflake(dto.channel_id) : null;
    // undefined: unchanged; null: removed.
    const signing =
      dto.signing_secret === undefined
        ? undefined
        : {
            sealed:
              dto.signing_secret === null
                ? null
                : encryptSecret(this.config.secretKey, dto.signing_secret),
            context,
          };
    const updated = await this.applyUpdate(webhook, dto, target, signing);
    return toWebhookResponse(updated, this.token(updated), webhook.user);
  }

  async updateWithToken(
    webhookId: string,
    token: string,
    dto: UpdateWebhookTokenDto,
  ): Promise<WebhookTokenResponse> {
    const webhook = await this.byToken(webhookId, token);
    return toWebhookTokenResponse(await this.applyUpdate(webhook, dto, null), token);
  }

  private async applyUpdate(
    webhook: WebhookEntity,
    dto: UpdateWebhookTokenDto,
    channelId: string | null,
    signing?: { sealed: string | null; context: AuditContext },
  ): Promise<WebhookEntity> {
    const patch: Partial<WebhookEntity> = {};
    if (signing) patch.signingSecretEncrypted = signing.sealed;
    if (dto.name !== undefined) patch.name = dto.name.trim() || dto.name;
    if (dto.avatar !== undefined) {
      patch.avatar = await this.assets.storeImage('avatars', webhook.id, dto.avatar, 'avatar');
    }
    await this.dataSource.transaction(async (m) => {
      if (channelId !== null && channelId !== webhook.channelId) {
        const rows = await m.query<Array<{ guild_id: string }>>(
          'SELECT guild_id::text AS guild_id FROM channels WHERE id = $1',
          [channelId],
        );
        if (rows[0]?.guild_id !== webhook.guildId) {
          throw ApiError.field('channel_id', FieldErrorCode.InvalidWebhookChannel);
        }
        await this.reserveSlot(m, channelId);
        patch.channelId = channelId;
      }
      if (Object.keys(patch).length > 0) {
        await m.update(WebhookEntity, { id: webhook.id }, patch);
        const channels = [webhook.channelId];
        if (patch.channelId && patch.channelId !== webhook.channelId)
          channels.push(patch.channelId);
        await this.announce(m, webhook.guildId, channels);
      }
      if (signing) {
        await this.audit.record(m, {
          ...signing.context,
          action: 'webhook.signing_secret.update',
          targetType: 'webhook',
          targetId: webhook.id,
          metadata: { set: signing.sealed !== null, guild_id: webhook.guildId },
        });
      }
    });
    this.cache.evict(webhook.id);
    return Object.assign(webhook, patch);
  }

  async delete(userId: string, webhookId: string, context: AuditContext): Promise<void> {
    const webhook = await this.manageable(userId, webhookId);
    await this.deleteAudited(webhook, context, 'credential');
  }

  /** Deleting with the token: whoever holds it acts (anonymously). */
  async deleteWithToken(webhookId: string, token: string, context: AuditContext): Promise<void> {
    const webhook = await this.byToken(webhookId, token);
    await this.deleteAudited(webhook, context, 'token');
  }

  private async deleteAudited(
    webhook: WebhookEntity,
    context: AuditContext,
    via: 'credential' | 'token',
  ): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      await m.delete(WebhookEntity, { id: webhook.id });
      await this.announce(m, webhook.guildId, [webhook.channelId]);
      await this.audit.record(m, {
        ...context,
        action: 'webhook.delete',
        targetType: 'webhook',
        targetId: webhook.id,
        metadata: {
          name: webhook.name,
          guild_id: webhook.guildId,
          channel_id: webhook.channelId,
          via,
        },
      });
    });
    this.cache.evict(webhook.id);
  }

  /**
   * Removes the avatars of a guild's webhooks (the admin asset purge), announced; returns every
   * webhook of the guild with the avatar it had.
   */
  async clearAvatars(
    m: EntityManager,
    guildId: string,
  ): Promise<Array<{ id: string; avatar: string | null }>> {
    const webhooks = await m.query<
      Array<{ id: string; avatar: string | null; channel_id: string }>
    >(
      `SELECT id::text AS id, avatar, channel_id::text AS channel_id FROM webhooks
        WHERE guild_id = $1 ORDER BY id FOR UPDATE`,
      [guildId],
    );
    const changed = webhooks.filter((w) => w.avatar !== null);
    if (changed.length > 0) {
      await m.update(WebhookEntity, { id: In(changed.map((w) => w.id)) }, { avatar: null });
      await this.announce(m, guildId, [...new Set(changed.map((w) => w.channel_id))]);
      for (const w of changed) this.cache.evict(w.id);
    }
    return webhooks.map(({ id, avatar }) => ({ id, avatar }));
  }

  /** WEBHOOKS_UPDATE for each channel whose webhooks changed (Discord's event: ids only). */
  private async announce(m: EntityManager, guildId: string, channelIds: string[]): Promise<void> {
    await this.events.publish(
      m,
      channelIds.map((channelId) => ({
        t: EventName.WebhooksUpdate,
        guildId,
        channelId,
        d: { guild_id: guildId, channel_id: channelId },
      })),
    );
  }
}
