import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { DataSource, type EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { flattenValidationErrors } from '../../common/errors/validation';
import { UserDispatchEvents } from '../../infra/events/realtime-event';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import type { MessageResponse } from '../guilds/guild.response';
import { readModalComponents } from '../guilds/components/components';
import { ApplicationsService } from '../oauth2/applications.service';
import {
  AutocompleteResultDto,
  CallbackType,
  InteractionCallbackDto,
  ModalDto,
} from './dto/interaction-callback.dto';
import type { UploadedFiles } from '../../common/http/multipart';
import type { ReceivedFile } from '../guilds/attachments/attachment-store';
import { InteractionEntity } from './interaction.entity';
import { InteractionMessages } from './interaction-messages';
import { ANSWER_DEADLINE_MS, InteractionOutcomes } from './interaction-outcomes';

/** Which answers fit which interaction (Discord's rules), by interaction type. */
const ANSWERS: Record<number, number[]> = {
  2: [4, 5, 9],
  3: [4, 5, 6, 7, 9],
  4: [8],
  5: [4, 5, 6, 7],
};

/** Discord's interaction callback response (`?with_response=true`). */
export interface CallbackResponse {
  interaction: {
    id: string;
    type: number;
    response_message_id?: string;
    response_message_loading?: boolean;
    response_message_ephemeral?: boolean;
  };
  resource?: { type: number; message?: MessageResponse };
}

/**
 * The application's first answer (`POST /interactions/{id}/{token}/callback`, or the 200 body of
 * its endpoint): accepted once, within 3 seconds of the interaction — a conditional update of its
 * row decides, on whichever instance, so a second answer is 40060 and a late one 10062 — and
 * applied in that update's transaction with INTERACTION_SUCCESS for the user.
 */
@Injectable()
export class InteractionResponses {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly messages: InteractionMessages,
    private readonly outcomes: InteractionOutcomes,
    private readonly events: RealtimeEvents,
    private readonly apps: ApplicationsService,
  ) {}

  /** The 200 body of the application's endpoint, taken as its callback. */
  async respondInline(interaction: InteractionEntity, body: unknown): Promise<void> {
    const dto = plainToInstance(InteractionCallbackDto, body ?? {});
    const errors = validateSync(dto, { forbidUnknownValues: false });
    if (errors.length > 0 || typeof body !== 'object') {
      throw new Error('the endpoint answered with an invalid interaction response');
    }
    await this.respond(interaction, dto, false);
  }

  async respond(
    interaction: InteractionEntity,
    dto: InteractionCallbackDto,
    withResponse: boolean,
    uploads: UploadedFiles<ReceivedFile> | null = null,
  ): Promise<CallbackResponse | null> {
    const files = uploads?.files ?? [];
    if (!ANSWERS[interaction.type]?.includes(dto.type)) {
      throw ApiError.field(
        'type',
        FieldErrorCode.BaseTypeInvalid,
        'Invalid response type for this interaction.',
      );
    }
    // The body is checked before the answer is claimed: a bad one costs the application nothing.
    const apply = this.parsed(interaction, dto, files);
    const answer = await this.db.transaction(async (m) => {
      await this.claim(m, interaction, dto.type);
      const out: CallbackResponse = { interaction: { id: interaction.id, type: interaction.type } };
      const message = await apply(m);
      if (message) {
        await m.update(
          InteractionEntity,
          { id: interaction.id },
          { originalMessageId: message.id },
        );
        out.interaction.response_message_id = message.id;
        out.interaction.response_message_loading = (message.flags & 128) !== 0;
        out.interaction.response_message_ephemeral = (message.flags & 64) !== 0;
      }
      out.resource = message ? { type: dto.type, message } : { type: dto.type };
      await this.outcomes.answered(m, {
        id: interaction.id,
        user_id: interaction.userId,
        nonce: interaction.nonce,
      });
      return withResponse ? out : null;
    });
    uploads?.keep();
    return answer;
  }

  /** The answer's body checked now; what applying it does, once the answer is claimed. */
  private parsed(
    interaction: InteractionEntity,
    dto: InteractionCallbackDto,
    files: readonly ReceivedFile[],
  ): (m: EntityManager) => Promise<MessageResponse | null> {
    switch (dto.type) {
      case CallbackType.CHANNEL_MESSAGE_WITH_SOURCE: {
        const draft = this.messages.parse(dto.data, 'data');
        return (m) => this.messages.post(m, interaction, draft, {}, files);
      }
      case CallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: {
        const draft = dto.data ? this.messages.parse(dto.data, 'data') : {};
        const flags = (draft.flags ?? 0) & 64;
        return (m) => this.messages.post(m, interaction, { flags }, { loading: true });
      }
      case CallbackType.DEFERRED_UPDATE_MESSAGE:
        return () => Promise.resolve(null);
      case CallbackType.UPDATE_MESSAGE: {
        const draft = this.messages.parse(dto.data, 'data');
        return async (m) => {
          const target = interaction.messageId;
          if (!target) throw ApiError.field('type', FieldErrorCode.BaseTypeInvalid);
          await this.messages.edit(m, interaction, target, draft, files);
          return null;
        };
      }
      case CallbackType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT: {
        const result = checked(AutocompleteResultDto, dto.data);
        return async (m) => {
          await this.userEvent(
            m,
            interaction,
            UserDispatchEvents.ApplicationCommandAutocompleteResponse,
            {
              choices: result.choices.map(({ name, value }) => ({ name, value })),
            },
          );
          return null;
        };
      }
      default: {
        const modal = checked(ModalDto, dto.data);
        const inputs = readModalComponents(modal.components, 'data.components');
        if (inputs.errors.length > 0) throw ApiError.form(inputs.errors);
        return async (m) => {
          await m.query(
            `UPDATE interactions SET metadata = metadata || jsonb_build_object('modal_custom_id', $2::text)
              WHERE id = $1`,
            [interaction.id, modal.custom_id],
          );
          const app = await this.apps.findCached(interaction.applicationId);
          await this.userEvent(m, interaction, UserDispatchEvents.InteractionModalCreate, {
            channel_id: interaction.channelId,
            title: modal.title,
            custom_id: modal.custom_id,
            components: inputs.components,
            application: {
              id: interaction.applicationId,
              name: app?.name ?? '',
              icon: app?.icon ?? null,
            },
          });
          return null;
        };
      }
    }
  }

  /** Records the answer: once, within the deadline (40060 after an answer, 10062 when late). */
  private async claim(
    m: EntityManager,
    interaction: InteractionEntity,
    type: number,
  ): Promise<void> {
    const [rows] = await m.query<[unknown[], number]>(
      `UPDATE interactions SET responded_at = now(), response_type = $2
        WHERE id = $1 AND responded_at IS NULL AND failed_at IS NULL
          AND created_at > now() - $3 * interval '1 millisecond'
        RETURNING id`,
      [interaction.id, type, ANSWER_DEADLINE_MS],
    );
    if (rows.length === 1) return;
    const [row] = await m.query<Array<{ responded: boolean }>>(
      'SELECT responded_at IS NOT NULL AS responded FROM interactions WHERE id = $1',
      [interaction.id],
    );
    throw new ApiError(
      row?.responded ? ErrorCode.InteractionAlreadyAcknowledged : ErrorCode.UnknownInteraction,
    );
  }

  private async userEvent(
    m: EntityManager,
    interaction: InteractionEntity,
    t: UserDispatchEvents,
    d: object,
  ): Promise<void> {
    const payload: Record<string, unknown> = { id: interaction.id, ...d };
    if (interaction.nonce !== null) payload.nonce = interaction.nonce;
    await this.events.publish(m, [{ t, userId: interaction.userId, d: payload }]);
  }
}

/** `data` validated as `dto` (400 with its fields under `data`). */
function checked<T extends object>(dto: new () => T, data: unknown): T {
  const value = plainToInstance(dto, data ?? {});
  const errors = validateSync(value, { whitelist: true, forbidUnknownValues: false });
  if (errors.length > 0) throw ApiError.form(flattenValidationErrors(errors, 'data'));
  return value;
}
