import { Injectable } from '@nestjs/common';
import type { ParleyRequest } from '../../common/auth/caller';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import type { FileIntake } from '../../common/http/multipart';
import type { FileIntakeOpener } from '../../common/http/route-policy';
import { AttachmentStore, type ReceivedFile } from '../guilds/attachments/attachment-store';
import { InteractionFileIntake } from '../interactions/interaction-file-intake';
import { InteractionEntity } from '../interactions/interaction.entity';
import type { AuthenticatedWebhook } from './webhook-credentials';
import { WebhookMessagesService } from './webhook-messages.service';

/**
 * Files added by a webhook's message edit (`PATCH /webhooks/{webhook_id}/{token}/messages/
 * {message_id}`, multipart): opened after the token was checked (the route credential), and only
 * for a message the webhook posted in its channel — 404 before a byte is read otherwise. They are
 * stored for the webhook's channel, uploaded by nobody (a webhook is no user). An interaction's
 * token on this route: InteractionFileIntake.
 */
@Injectable()
export class WebhookMessageFileIntake implements FileIntakeOpener {
  constructor(
    private readonly messages: WebhookMessagesService,
    private readonly store: AttachmentStore,
    private readonly interactions: InteractionFileIntake,
  ) {}

  async open(req: ParleyRequest): Promise<FileIntake<ReceivedFile>> {
    const webhook = req.routeCredential?.value as AuthenticatedWebhook | InteractionEntity | null;
    // The access guard lets no request without a credential this far.
    if (!webhook) throw new ApiError(ErrorCode.UnknownWebhook);
    // An interaction's message: its files go to the interaction's channel (which of its
    // messages it is, `@original` or a follow-up, its edit checks).
    if (webhook instanceof InteractionEntity) return this.interactions.forInteraction(webhook);
    const ref = (req.params as Record<string, string | undefined>).message_id ?? '';
    const target = await this.messages.uploadTarget(webhook, ref);
    return this.store.intakeFor({
      channelId: target.channelId,
      guildId: target.guildId,
      uploaderId: null,
    });
  }
}
