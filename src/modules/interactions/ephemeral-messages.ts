import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { EventName, type RealtimeEvent } from '../../infra/events/realtime-event';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import { messageComponentsOf } from '../guilds/components/components';
import type { MessageResponse } from '../guilds/guild.response';
import { checkedDraft, type InteractionMessageDraft } from '../guilds/interaction-messages.writer';
import { EphemeralMessageEntity, type InteractionEntity } from './interaction.entity';

/**
 * Ephemeral messages (flags 64): shown to the invoking user only — their MESSAGE_CREATE/UPDATE/
 * DELETE are user-scoped events for that user's sessions — and kept beside the interaction, never
 * in the channel's messages, so no history read can return them. They live as long as the
 * interaction's token (15 minutes; the sweep deletes them with the interaction).
 */
@Injectable()
export class EphemeralMessages {
  constructor(private readonly events: RealtimeEvents) {}

  async create(m: EntityManager, interaction: InteractionEntity, message: MessageResponse) {
    await m.insert(EphemeralMessageEntity, {
      id: message.id,
      interactionId: interaction.id,
      channelId: interaction.channelId,
      userId: interaction.userId,
      message,
    });
    await this.events.publish(m, [this.event(EventName.MessageCreate, interaction, message)]);
    return message;
  }

  /** One of the interaction's ephemeral messages, or null. */
  async find(m: EntityManager, interaction: InteractionEntity, id: string, lock = false) {
    const row = await m.getRepository(EphemeralMessageEntity).findOne({
      where: { id, interactionId: interaction.id },
      lock: lock ? { mode: 'pessimistic_write' } : undefined,
    });
    return row?.message ?? null;
  }

  async edit(
    m: EntityManager,
    interaction: InteractionEntity,
    current: MessageResponse,
    draft: InteractionMessageDraft,
  ): Promise<MessageResponse> {
    const loading = (current.flags & 128) !== 0;
    const components = messageComponentsOf(draft.components, true) ?? current.components;
    const body = checkedDraft(
      { content: draft.content ?? current.content, embeds: draft.embeds ?? current.embeds },
      components.length,
    );
    const message: MessageResponse = {
      ...current,
      content: body.content,
      embeds: body.embeds,
      components,
      flags: current.flags & ~128,
      edited_timestamp: loading ? null : new Date().toISOString(),
    };
    await m.update(EphemeralMessageEntity, { id: current.id }, { message });
    await this.events.publish(m, [this.event(EventName.MessageUpdate, interaction, message)]);
    return message;
  }

  async delete(m: EntityManager, interaction: InteractionEntity, id: string): Promise<void> {
    await m.delete(EphemeralMessageEntity, { id, interactionId: interaction.id });
    await this.events.publish(m, [
      {
        t: EventName.MessageDelete,
        userId: interaction.userId,
        d: { id, channel_id: interaction.channelId, guild_id: interaction.guildId },
      },
    ]);
  }

  private event(
    t: EventName.MessageCreate | EventName.MessageUpdate,
    interaction: InteractionEntity,
    message: MessageResponse,
  ): RealtimeEvent {
    return { t, userId: interaction.userId, d: { ...message, guild_id: interaction.guildId } };
  }
}

/** Not found among the interaction's messages (ephemeral or not). */
export function unknownMessage(): ApiError {
  return new ApiError(ErrorCode.UnknownMessage);
}
