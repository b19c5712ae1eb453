import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ParleyRequest } from '../../common/auth/caller';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import type { FileIntake } from '../../common/http/multipart';
import type { FileIntakeOpener } from '../../common/http/route-policy';
import { AttachmentStore, type ReceivedFile } from '../guilds/attachments/attachment-store';
import { InteractionFileIntake } from '../interactions/interaction-file-intake';
import { InteractionEntity } from '../interactions/interaction.entity';
import type { AuthenticatedWebhook } from './webhook-credentials';

/**
 * Files of a webhook's message (`POST /webhooks/{id}/{token}`) or of an interaction's
 * (follow-ups on that route, callbacks, edits through the interaction's webhook): the route's
 * token was checked by the caller guard; the files go to the webhook's (the interaction's)
 * channel. Nobody's upload: the uploader stays empty.
 */
@Injectable()
export class WebhookFileIntake implements FileIntakeOpener {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: AttachmentStore,
    private readonly interactions: InteractionFileIntake,
  ) {}

  async open(req: ParleyRequest): Promise<FileIntake<ReceivedFile>> {
    const credential = req.routeCredential?.value as
      AuthenticatedWebhook | InteractionEntity | null;
    if (credential instanceof InteractionEntity)
      return this.interactions.forInteraction(credential);
    if (!credential) throw new ApiError(ErrorCode.UnknownWebhook);
    const [row] = await this.dataSource.query<Array<{ channel_id: string; guild_id: string }>>(
      `SELECT w.channel_id::text AS channel_id, c.guild_id::text AS guild_id
         FROM webhooks w JOIN channels c ON c.id = w.channel_id WHERE w.id = $1`,
      [credential.webhookId],
    );
    if (!row) throw new ApiError(ErrorCode.UnknownWebhook);
    return this.store.intakeFor({
      channelId: row.channel_id,
      guildId: row.guild_id,
      uploaderId: null,
    });
  }
}
