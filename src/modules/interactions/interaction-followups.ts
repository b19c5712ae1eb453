import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ReceivedPayload } from '../../common/auth/caller';
import type { UploadedFiles } from '../../common/http/multipart';
import type { ReceivedFile } from '../guilds/attachments/attachment-store';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import type { MessageResponse } from '../guilds/guild.response';
import { CallbackType } from './dto/interaction-callback.dto';
import type { InteractionEntity } from './interaction.entity';
import { InteractionMessages } from './interaction-messages';

/**
 * The interaction's webhook (`/webhooks/{application_id}/{interaction_token}`, 15 minutes):
 * follow-up messages once the interaction was answered, and reading, editing and deleting its
 * messages — `@original` being the answer (or, for an answer that updates a component's message,
 * that message).
 */
@Injectable()
export class InteractionFollowups {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly messages: InteractionMessages,
  ) {}

  /** A follow-up message (POST, as webhook execute): the answer must have come first. */
  async post(
    interaction: InteractionEntity,
    payload: ReceivedPayload | null,
    uploads: UploadedFiles<ReceivedFile> | null = null,
  ): Promise<MessageResponse> {
    if (!interaction.respondedAt) throw new ApiError(ErrorCode.UnknownInteraction);
    const files = uploads?.files ?? [];
    // A follow-up of files only has no JSON to read.
    const body = jsonOf(payload) ?? (files.length > 0 ? {} : undefined);
    const draft = this.messages.parse(body, '');
    const message = await this.db.transaction((m) =>
      this.messages.post(
        m,
        interaction,
        draft,
        { originalId: interaction.originalMessageId ?? undefined },
        files,
      ),
    );
    uploads?.keep();
    return message;
  }

  get(interaction: InteractionEntity, ref: string): Promise<MessageResponse> {
    return this.messages.get(this.db.manager, interaction, this.idOf(interaction, ref));
  }

  async edit(
    interaction: InteractionEntity,
    ref: string,
    body: unknown,
    uploads: UploadedFiles<ReceivedFile> | null = null,
  ): Promise<MessageResponse> {
    const files = uploads?.files ?? [];
    const draft = this.messages.parse(body ?? (files.length > 0 ? {} : undefined), '');
    const id = this.idOf(interaction, ref);
    const message = await this.db.transaction((m) =>
      this.messages.edit(m, interaction, id, draft, files),
    );
    uploads?.keep();
    return message;
  }

  delete(interaction: InteractionEntity, ref: string): Promise<void> {
    const id = this.idOf(interaction, ref);
    return this.db.transaction((m) => this.messages.delete(m, interaction, id));
  }

  /** `@original` or a message id. */
  private idOf(interaction: InteractionEntity, ref: string): string {
    if (ref !== '@original') {
      if (!/^\d{1,20}$/.test(ref)) throw new ApiError(ErrorCode.UnknownMessage);
      return ref;
    }
    const updatesComponent =
      interaction.responseType === CallbackType.DEFERRED_UPDATE_MESSAGE ||
      interaction.responseType === CallbackType.UPDATE_MESSAGE;
    const id = interaction.originalMessageId ?? (updatesComponent ? interaction.messageId : null);
    if (!id) throw new ApiError(ErrorCode.UnknownMessage);
    return id;
  }
}

/** The follow-up's JSON body (webhook routes keep bodies as bytes). */
function jsonOf(payload: ReceivedPayload | null): unknown {
  if (!payload) return undefined;
  if (payload.mediaType !== 'json') throw new ApiError(ErrorCode.EmptyMessage);
  try {
    return JSON.parse(payload.bytes.toString('utf8'));
  } catch {
    throw new ApiError(ErrorCode.InvalidJson);
  }
}
