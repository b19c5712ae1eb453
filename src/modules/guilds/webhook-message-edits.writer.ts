import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, type EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import type { UploadedFiles } from '../../common/http/multipart';
import { EventName } from '../../infra/events/realtime-event';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import { AttachmentStore, type ReceivedFile } from './attachments/attachment-store';
import { planAttachments } from './attachments/message-attachments';
import type { AttachmentRefDto } from './dto/attachment-ref.dto';
import { normalizeDraft, urlErrors, type Embed } from './embeds/embed';
import type { MessageResponse } from './guild.response';
import { MessageFlags } from './interaction-messages.writer';
import { MessageEntity } from './message.entity';
import { MessageRenderer } from './message-renderer';
import { messageEvent } from './messages.service';

/** A webhook as its message routes act for it: its id, and where it posts now. */
export interface WebhookMessageSource {
  webhookId: string;
  channelId: string;
  guildId: string;
}

/**
 * What a webhook's message edit changes (Discord's edit body, as far as a webhook that belongs to
 * no application may change it); a field left out stays.
 */
export interface WebhookMessageEdit {
  content?: string;
  embeds?: Embed[];
  /** Only SUPPRESS_EMBEDS is set or cleared (Discord's rule for edits); other bits are ignored. */
  flags?: number;
  /** Discord's list of attachments to keep and files to add (planAttachments). */
  attachments?: AttachmentRefDto[];
}

/**
 * A webhook's own messages after they were posted (Discord's `/webhooks/{id}/{token}/messages/…`):
 * read, edited and deleted by the webhook that posted them, in the channel it posts in now — any
 * other message is 404 UNKNOWN_MESSAGE, as if it did not exist. Part of MessagesService's
 * ownership of messages (WebhookMessagesWriter posts them): every write announces itself
 * (MESSAGE_UPDATE/DELETE) in its transaction.
 */
@Injectable()
export class WebhookMessageEditsWriter {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly renderer: MessageRenderer,
    private readonly events: RealtimeEvents,
    private readonly store: AttachmentStore,
  ) {}

  /** The message as REST shows it (reactions counted; the webhook never reacts: `me` false). */
  async get(source: WebhookMessageSource, messageId: string): Promise<MessageResponse> {
    const m = this.dataSource.manager;
    const row = await this.owned(m, source, messageId, false);
    const [out] = await this.renderer.render(m, source.guildId, [row], source.webhookId);
    return out;
  }

  /** 404 UNKNOWN_MESSAGE unless the webhook posted the message (checked before files are read). */
  async requireOwned(source: WebhookMessageSource, messageId: string): Promise<void> {
    await this.owned(this.dataSource.manager, source, messageId, false);
  }

  /**
   * Edits content, embeds, SUPPRESS_EMBEDS and attachments (kept, renamed, dropped, and this
   * request's files added, as MessagesService.edit does); the result must still show something.
   * The files become the message's in its transaction and are kept once it committed.
   */
  async edit(
    source: WebhookMessageSource,
    messageId: string,
    edit: WebhookMessageEdit,
    uploads: UploadedFiles<ReceivedFile> | null = null,
  ): Promise<MessageResponse> {
    const edited = await this.dataSource.transaction(async (m) => {
      const row = await this.owned(m, source, messageId, true);
      const plan = planAttachments(
        edit.attachments,
        uploads?.files ?? [],
        new Map(),
        row.attachments,
      );
      const embeds = edit.embeds ?? row.embeds;
      const badUrls = urlErrors(embeds);
      if (badUrls.length > 0) throw ApiError.form(badUrls);
      const draft = normalizeDraft({ content: edit.content ?? row.content, embeds });
      if (!draft && row.components.length === 0 && plan.attachments.length === 0) {
        throw new ApiError(ErrorCode.EmptyMessage);
      }
      row.content = draft?.content ?? '';
      row.embeds = draft?.embeds ?? [];
      row.attachments = plan.attachments;
      if (edit.flags !== undefined) {
        const suppress = MessageFlags.SUPPRESS_EMBEDS;
        row.flags = (row.flags & ~suppress) | (edit.flags & suppress);
      }
      row.editedAt = new Date();
      await m.getRepository(MessageEntity).update(
        { id: row.id },
        {
          content: row.content,
          embeds: row.embeds,
          attachments: row.attachments,
          flags: row.flags,
          editedAt: row.editedAt,
        },
      );
      await this.store.settle(m, row.id, plan);
      const [out] = await this.renderer.render(m, source.guildId, [row]);
      await this.events.publish(m, [messageEvent(EventName.MessageUpdate, source.guildId, out)]);
      return out;
    });
    uploads?.keep();
    return (await this.renderer.withReactions([edited], source.webhookId))[0];
  }

  /**
   * Deletes the message (MESSAGE_DELETE). Its attachments' rows lose their message (the foreign
   * key sets it null): the sweep deletes their blobs.
   */
  async delete(source: WebhookMessageSource, messageId: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const row = await this.owned(m, source, messageId, true);
      await m.getRepository(MessageEntity).delete({ id: row.id });
      await this.store.messagesDeleted(m);
      await this.events.publish(m, [
        {
          t: EventName.MessageDelete,
          guildId: source.guildId,
          channelId: row.channelId,
          d: { id: row.id, channel_id: row.channelId, guild_id: source.guildId },
        },
      ]);
    });
  }

  /** A message the webhook posted in its channel (locked when about to change); 404 otherwise. */
  private async owned(
    m: EntityManager,
    source: WebhookMessageSource,
    messageId: string,
    lock: boolean,
  ): Promise<MessageEntity> {
    const row = await m.getRepository(MessageEntity).findOne({
      where: {
        id: messageId,
        channelId: source.channelId,
        webhookId: source.webhookId,
        interactionId: IsNull(),
      },
      lock: lock ? { mode: 'pessimistic_write' } : undefined,
    });
    if (!row) throw new ApiError(ErrorCode.UnknownMessage);
    return row;
  }
}
