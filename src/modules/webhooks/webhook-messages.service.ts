import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import type { UploadedFiles } from '../../common/http/multipart';
import { parseSnowflake } from '../../common/snowflake/snowflake';
import type { ReceivedFile } from '../guilds/attachments/attachment-store';
import type { MessageResponse } from '../guilds/guild.response';
import {
  WebhookMessageEditsWriter,
  type WebhookMessageSource,
} from '../guilds/webhook-message-edits.writer';
import { InteractionEntity } from '../interactions/interaction.entity';
import { InteractionFollowups } from '../interactions/interaction-followups';
import type { EditWebhookMessageDto } from './dto/edit-webhook-message.dto';
import type { AuthenticatedWebhook } from './webhook-credentials';
import { WebhookEntity } from './webhook.entity';

/**
 * What `/webhooks/{webhook_id}/{token}/…` authenticated: a webhook, or — a token beginning with
 * `aW50ZXJhY3Rpb246` — an interaction, whose webhook these routes are too (Discord's one path).
 */
export type RouteWebhook = AuthenticatedWebhook | InteractionEntity;

/**
 * A webhook's messages after they were posted (`GET`/`PATCH`/`DELETE
 * /webhooks/{webhook_id}/{token}/messages/{message_id}`): an interaction's token is handed to
 * the interactions module (its answer, `@original`, and follow-ups), a webhook's acts on the
 * messages it posted in its channel (WebhookMessageEditsWriter), where `@original` names nothing.
 */
@Injectable()
export class WebhookMessagesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly followups: InteractionFollowups,
    private readonly writer: WebhookMessageEditsWriter,
  ) {}

  async get(webhook: RouteWebhook, ref: string): Promise<MessageResponse> {
    if (webhook instanceof InteractionEntity) return this.followups.get(webhook, ref);
    return this.writer.get(await this.sourceOf(webhook), messageIdOf(ref));
  }

  /**
   * Content, embeds, SUPPRESS_EMBEDS, attachments and files; components are ignored, as
   * on Discord for a webhook no application owns (none here does) and as execute does.
   */
  async edit(
    webhook: RouteWebhook,
    ref: string,
    dto: EditWebhookMessageDto,
    uploads: UploadedFiles<ReceivedFile> | null,
  ): Promise<MessageResponse> {
    if (webhook instanceof InteractionEntity) {
      return this.followups.edit(webhook, ref, dto, uploads);
    }
    const source = await this.sourceOf(webhook);
    return this.writer.edit(source, messageIdOf(ref), dto, uploads);
  }

  async delete(webhook: RouteWebhook, ref: string): Promise<void> {
    if (webhook instanceof InteractionEntity) return this.followups.delete(webhook, ref);
    return this.writer.delete(await this.sourceOf(webhook), messageIdOf(ref));
  }

  /**
   * Where a webhook's files for message `ref` go (its channel), once the message is known to be
   * one it posted there: 404 UNKNOWN_MESSAGE before a byte of a file is read otherwise.
   */
  async uploadTarget(webhook: AuthenticatedWebhook, ref: string): Promise<WebhookMessageSource> {
    const source = await this.sourceOf(webhook);
    await this.writer.requireOwned(source, messageIdOf(ref));
    return source;
  }

  /**
   * The webhook as it is now: its channel and guild, with the token the route checked (a token
   * regenerated or a webhook deleted since, on any instance, is 404 UNKNOWN_WEBHOOK).
   */
  private async sourceOf(webhook: AuthenticatedWebhook): Promise<WebhookMessageSource> {
    const row = await this.dataSource.getRepository(WebhookEntity).findOne({
      select: { id: true, channelId: true, guildId: true },
      where: { id: webhook.webhookId, tokenHash: webhook.tokenHash },
    });
    if (!row) throw new ApiError(ErrorCode.UnknownWebhook);
    return { webhookId: row.id, channelId: row.channelId, guildId: row.guildId };
  }
}

/** A message id; anything else (`@original` included: a webhook has no answer) names nothing. */
function messageIdOf(ref: string): string {
  const id = parseSnowflake(ref);
  if (!id) throw new ApiError(ErrorCode.UnknownMessage);
  return id;
}
