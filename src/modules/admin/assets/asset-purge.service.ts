import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { ErrorCode } from '../../../common/errors/error-code';
import { parseSnowflake } from '../../../common/snowflake/snowflake';
import type { BlobInfo } from '../../../infra/storage/blob-storage';
import { AssetStorage } from '../../../infra/storage/asset-storage.service';
import type { AuditContext } from '../../audit/audit-context';
import { AuditLog } from '../../audit/audit-log.service';
import { GuildsService } from '../../guilds/guilds.service';
import { MessagesService } from '../../guilds/messages.service';
import { WebhooksService } from '../../webhooks/webhooks.service';
import type { PurgeGuildAssetsRequest } from './purge-guild-assets.dto';
import { toGuildAssetPurgeResult, type GuildPurgeOutcome } from './purge-guild-assets.mapper';
import type { PurgeGuildAssetsResponseSchema } from './purge-guild-assets.response';

/** `errors[]` entries of a guild's purge result. */
export const PurgeError = {
  UnknownGuild: ErrorCode.UnknownGuild,
  /** Followed by `: <file key>`. */
  DeleteFailed: 'DELETE_FAILED',
} as const;

/**
 * `POST /admin/assets/purge`: deletes each guild's stored images — icon, banner and its webhooks'
 * avatars, with any former versions still on disk — and clears every reference to them (guild
 * columns, webhook avatars, webhook message snapshots). Per guild, the references are cleared in
 * one transaction with its audit entry; the files are deleted after the commit, so a failed
 * commit never leaves references to deleted files, and a failed file delete is reported in
 * `errors[]` rather than undoing the purge.
 */
@Injectable()
export class AssetPurgeService {
  private readonly logger = new Logger(AssetPurgeService.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly assets: AssetStorage,
    private readonly audit: AuditLog,
    private readonly guilds: GuildsService,
    private readonly messages: MessagesService,
    private readonly webhooks: WebhooksService,
  ) {}

  async purge(
    dto: PurgeGuildAssetsRequest,
    audit: AuditContext,
  ): Promise<PurgeGuildAssetsResponseSchema> {
    // The DTO has validated every id; duplicates are purged once.
    const guildIds = [...new Set(dto.guild_ids.map((id) => parseSnowflake(id) as string))];
    const results: GuildPurgeOutcome[] = [];
    // One guild after another: at most 100 short transactions, no burst on the pool or the disk.
    for (const guildId of guildIds) results.push(await this.purgeGuild(audit, guildId));
    return { results: results.map(toGuildAssetPurgeResult) };
  }

  private async purgeGuild(audit: AuditContext, guildId: string): Promise<GuildPurgeOutcome> {
    const files = await this.db.transaction((m) => this.clearReferences(m, audit, guildId));
    if (files === null) {
      return { guildId, deleted: 0, bytesFreed: 0, errors: [PurgeError.UnknownGuild] };
    }
    const outcome: GuildPurgeOutcome = { guildId, deleted: 0, bytesFreed: 0, errors: [] };
    for (const file of files) {
      try {
        const freed = await this.assets.deleteFile(file.key);
        if (freed > 0) {
          outcome.deleted += 1;
          outcome.bytesFreed += freed;
        }
      } catch (err) {
        this.logger.warn(`asset purge: could not delete ${file.key}: ${(err as Error).message}`);
        outcome.errors.push(`${PurgeError.DeleteFailed}: ${file.key}`);
      }
    }
    return outcome;
  }

  /** Clears the guild's references and records the purge; returns the files to delete. */
  private async clearReferences(
    m: EntityManager,
    audit: AuditContext,
    guildId: string,
  ): Promise<BlobInfo[] | null> {
    // Each owner clears its references and announces it (GUILD_UPDATE, WEBHOOKS_UPDATE,
    // MESSAGE_UPDATE); their row locks keep a concurrent change from slipping in between.
    const guild = await this.guilds.clearImages(m, guildId);
    if (!guild) return null;
    const webhooks = await this.webhooks.clearAvatars(m, guildId);
    const messages = await this.messages.clearWebhookAvatars(m, guildId);

    const folders = await Promise.all([
      this.assets.listFiles('icons', guildId),
      this.assets.listFiles('banners', guildId),
      ...webhooks.map((w) => this.assets.listFiles('avatars', w.id)),
    ]);
    const files = folders.flat();
    await this.audit.record(m, {
      actor: audit.actor,
      action: 'asset.purge',
      targetType: 'guild',
      targetId: guildId,
      reason: audit.reason,
      ip: audit.ip,
      metadata: {
        icon_cleared: guild.icon !== null,
        banner_cleared: guild.banner !== null,
        webhooks: webhooks.length,
        webhook_avatars_cleared: webhooks.filter((w) => w.avatar !== null).length,
        message_avatars_cleared: messages,
        files: files.length,
        bytes: files.reduce((sum, f) => sum + f.size, 0),
      },
    });
    return files;
  }
}
