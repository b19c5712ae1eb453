import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { flattenValidationErrors } from '../../common/errors/validation';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import type { ReceivedFile } from '../guilds/attachments/attachment-store';
import type { MessageResponse } from '../guilds/guild.response';
import {
  InteractionMessagesWriter,
  MessageFlags,
  type InteractionMessageSource,
} from '../guilds/interaction-messages.writer';
import { ApplicationsService } from '../oauth2/applications.service';
import { InteractionMessageDto } from './dto/interaction-callback.dto';
import { EphemeralMessages } from './ephemeral-messages';
import type { InteractionEntity } from './interaction.entity';

/** Discord's message types of an interaction's messages. */
const CHAT_INPUT_COMMAND = 20;
const CONTEXT_MENU_COMMAND = 23;

/**
 * An interaction's messages — its answer, follow-ups, `@original` — wherever they live: in the
 * channel (InteractionMessagesWriter) or, ephemeral, beside the interaction (EphemeralMessages).
 */
@Injectable()
export class InteractionMessages {
  constructor(
    private readonly writer: InteractionMessagesWriter,
    private readonly ephemerals: EphemeralMessages,
    private readonly apps: ApplicationsService,
    private readonly snowflakes: SnowflakeService,
  ) {}

  /** Validates a message body (callback data, follow-up, edit): 400 with the fields. */
  parse(body: unknown, prefix: string): InteractionMessageDto {
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new ApiError(ErrorCode.EmptyMessage);
    }
    const dto = plainToInstance(InteractionMessageDto, body);
    const errors = validateSync(dto, { whitelist: true, forbidUnknownValues: false });
    if (errors.length > 0) throw ApiError.form(flattenValidationErrors(errors, prefix));
    return dto;
  }

  /** Posts a message of the interaction (ephemeral with flags 64). */
  async post(
    m: EntityManager,
    interaction: InteractionEntity,
    draft: InteractionMessageDto,
    extra: { loading?: boolean; originalId?: string } = {},
    files: readonly ReceivedFile[] = [],
  ): Promise<MessageResponse> {
    const source = await this.source(interaction, extra.originalId);
    const id = this.snowflakes.next();
    if ((draft.flags ?? 0) & MessageFlags.EPHEMERAL) {
      const message = await this.writer.render(m, source, draft, id, extra.loading, files);
      return this.ephemerals.create(m, interaction, message);
    }
    return this.writer.create(m, source, draft, id, extra.loading, files);
  }

  async get(
    m: EntityManager,
    interaction: InteractionEntity,
    id: string,
  ): Promise<MessageResponse> {
    const ephemeral = await this.ephemerals.find(m, interaction, id);
    if (ephemeral) return ephemeral;
    return this.writer.get(m, await this.source(interaction), id);
  }

  async edit(
    m: EntityManager,
    interaction: InteractionEntity,
    id: string,
    draft: InteractionMessageDto,
    files: readonly ReceivedFile[] = [],
  ): Promise<MessageResponse> {
    const ephemeral = await this.ephemerals.find(m, interaction, id, true);
    // An ephemeral message's files are those it was posted with.
    if (ephemeral) return this.ephemerals.edit(m, interaction, ephemeral, draft);
    return this.writer.edit(m, await this.source(interaction), id, draft, files);
  }

  async delete(m: EntityManager, interaction: InteractionEntity, id: string): Promise<void> {
    const ephemeral = await this.ephemerals.find(m, interaction, id, true);
    if (ephemeral) return this.ephemerals.delete(m, interaction, id);
    return this.writer.delete(m, await this.source(interaction), id);
  }

  /** Whose messages they are, and what they say of the interaction. */
  private async source(
    interaction: InteractionEntity,
    originalId?: string,
  ): Promise<InteractionMessageSource> {
    const app = await this.apps.findCached(interaction.applicationId);
    if (!app) throw new ApiError(ErrorCode.UnknownInteraction);
    const { modal_custom_id: _modal, ...metadata } = interaction.metadata;
    if (originalId) metadata.original_response_message_id = originalId;
    const commandType = metadata.command_type;
    return {
      interactionId: interaction.id,
      applicationId: interaction.applicationId,
      botUserId: app.botUserId,
      guildId: interaction.guildId,
      channelId: interaction.channelId,
      type: commandType === 1 ? CHAT_INPUT_COMMAND : commandType ? CONTEXT_MENU_COMMAND : 0,
      metadata,
      componentMessageId: interaction.messageId,
    };
  }
}
