import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { EventName } from '../../infra/events/realtime-event';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import { AttachmentStore, type ReceivedFile } from './attachments/attachment-store';
import { AttachmentSweeper } from './attachments/attachment-sweeper';
import { planAttachments } from './attachments/message-attachments';
import type { StoredAttachment } from './attachments/stored-attachment';
import type { AttachmentRefDto } from './dto/attachment-ref.dto';
import type { AllowedMentionsDto } from './dto/create-message.dto';
import { messageComponentsOf } from './components/components';
import { normalizeDraft, urlErrors, type Embed } from './embeds/embed';
import { GuildAccessService } from './guild-access.service';
import { GuildMembersService } from './guild-members.service';
import type { MessageResponse } from './guild.response';
import { guildRolesAmong, mentionsEveryone, requestedMentions } from './message-mentions';
import { UserEntity } from '../users/user.entity';
import { MessageRenderer } from './message-renderer';
import { MessageEntity, type InteractionMetadata } from './message.entity';
import { messageEvent } from './messages.service';

/** Discord's message flags an interaction's messages may carry. */
export const MessageFlags = {
  SUPPRESS_EMBEDS: 1 << 2,
  EPHEMERAL: 1 << 6,
  LOADING: 1 << 7,
} as const;

/** What an interaction's answer or follow-up posts (Discord's message fields of a callback). */
export interface InteractionMessageDraft {
  content?: string;
  embeds?: Embed[];
  allowed_mentions?: AllowedMentionsDto;
  flags?: number;
  /** Action rows (as sent: checked here); omitted on an edit keeps them, `[]` clears them. */
  components?: unknown;
  /** Discord's attachments list: files of the request by index, kept ones by id (an edit). */
  attachments?: AttachmentRefDto[];
}

/** How long an ephemeral message's files are kept (its interaction's token lifetime). */
const EPHEMERAL_FILES_MS = 15 * 60 * 1000;

/** Whose message it is: the interaction, its application and the application's bot. */
export interface InteractionMessageSource {
  interactionId: string;
  applicationId: string;
  botUserId: string;
  guildId: string;
  channelId: string;
  /** 20 CHAT_INPUT_COMMAND, 23 CONTEXT_MENU_COMMAND, or 0 for a component's or modal's answer. */
  type: number;
  metadata: InteractionMetadata;
  /** The message a clicked component is on: its answer may edit it (callback 7, `@original`). */
  componentMessageId?: string | null;
}

/**
 * Writes the messages interactions post in channels (responses, follow-ups and their edits): the
 * application's bot is the author, the interaction's metadata goes with the row, and every write
 * announces itself (MESSAGE_CREATE/UPDATE/DELETE) in its transaction, as every message write
 * does (MessagesService is the owner of plain messages; this is the one of these).
 */
@Injectable()
export class InteractionMessagesWriter {
  constructor(
    private readonly access: GuildAccessService,
    private readonly events: RealtimeEvents,
    private readonly renderer: MessageRenderer,
    private readonly members: GuildMembersService,
    private readonly store: AttachmentStore,
    private readonly sweeper: AttachmentSweeper,
  ) {}

  /**
   * Posts `draft` (or, `loading`, the placeholder of a deferred answer: no content, LOADING), in
   * `m`'s transaction.
   */
  async create(
    m: EntityManager,
    source: InteractionMessageSource,
    draft: InteractionMessageDraft,
    id: string,
    loading = false,
    files: readonly ReceivedFile[] = [],
  ): Promise<MessageResponse> {
    const plan = planAttachments(draft.attachments, files, new Map(), []);
    const row = await this.draftRow(m, source, draft, id, loading, plan.attachments);
    await m.getRepository(MessageEntity).insert(row);
    await this.store.attach(m, row.id, plan.taken);
    return this.announce(m, source.guildId, row, EventName.MessageCreate);
  }

  /**
   * The message `draft` would post, as it would be shown, without posting it: an ephemeral
   * message is kept beside its interaction instead (never in the channel's history).
   */
  async render(
    m: EntityManager,
    source: InteractionMessageSource,
    draft: InteractionMessageDraft,
    id: string,
    loading = false,
    files: readonly ReceivedFile[] = [],
  ): Promise<MessageResponse> {
    const plan = planAttachments(draft.attachments, files, new Map(), []);
    const shown = plan.attachments.map((a) => ({ ...a, ephemeral: true }));
    const row = await this.draftRow(m, source, draft, id, loading, shown);
    // Its files live as long as it may be read (then the sweep deletes them).
    await this.store.keepUntil(m, plan.taken, new Date(Date.now() + EPHEMERAL_FILES_MS));
    const [out] = await this.renderer.render(m, source.guildId, [row]);
    return out;
  }

  private async draftRow(
    m: EntityManager,
    source: InteractionMessageSource,
    draft: InteractionMessageDraft,
    id: string,
    loading: boolean,
    attachments: StoredAttachment[],
  ): Promise<MessageEntity> {
    const components = loading ? [] : (messageComponentsOf(draft.components, true) ?? []);
    const body = loading
      ? { content: '', embeds: [] }
      : checkedDraft(draft, components.length + attachments.length);
    const mentions = await this.mentions(m, source, body.content, draft.allowed_mentions);
    return m.getRepository(MessageEntity).create({
      id,
      channelId: source.channelId,
      authorId: source.botUserId,
      author: await m.findOneBy(UserEntity, { id: source.botUserId }),
      webhookId: null,
      webhookName: null,
      webhookAvatar: null,
      content: body.content,
      embeds: body.embeds,
      components,
      attachments,
      ...mentions,
      pinnedAt: null,
      nonce: null,
      referenceId: null,
      createdAt: new Date(),
      editedAt: null,
      type: source.type,
      flags:
        (loading ? MessageFlags.LOADING : 0) |
        ((draft.flags ?? 0) & (MessageFlags.SUPPRESS_EMBEDS | MessageFlags.EPHEMERAL)),
      applicationId: source.applicationId,
      interactionId: source.interactionId,
      interactionMetadata: source.metadata,
    });
  }

  /** Edits one of the interaction's messages (a deferred placeholder becomes the answer). */
  async edit(
    m: EntityManager,
    source: InteractionMessageSource,
    messageId: string,
    draft: InteractionMessageDraft,
    files: readonly ReceivedFile[] = [],
  ): Promise<MessageResponse> {
    const row = await this.owned(m, source, messageId, true);
    row.components = messageComponentsOf(draft.components, true) ?? row.components;
    const plan = planAttachments(draft.attachments, files, new Map(), row.attachments);
    row.attachments = plan.attachments;
    const body = checkedDraft(
      { content: draft.content ?? row.content, embeds: draft.embeds ?? row.embeds },
      row.components.length + row.attachments.length,
    );
    row.content = body.content;
    row.embeds = body.embeds;
    Object.assign(row, await this.mentions(m, source, row.content, draft.allowed_mentions));
    const wasLoading = (row.flags & MessageFlags.LOADING) !== 0;
    row.flags &= ~MessageFlags.LOADING;
    // Filling in a deferred answer is its first version, not an edit.
    if (!wasLoading) row.editedAt = new Date();
    await m.getRepository(MessageEntity).update(
      { id: row.id },
      {
        content: row.content,
        embeds: row.embeds,
        components: row.components,
        attachments: row.attachments,
        mentions: row.mentions,
        mentionRoles: row.mentionRoles,
        mentionEveryone: row.mentionEveryone,
        flags: row.flags,
        editedAt: row.editedAt,
      },
    );
    await this.store.settle(m, row.id, plan);
    return this.announce(m, source.guildId, row, EventName.MessageUpdate);
  }

  /** Deletes one of the interaction's messages (MESSAGE_DELETE). */
  async delete(
    m: EntityManager,
    source: InteractionMessageSource,
    messageId: string,
  ): Promise<void> {
    const row = await this.owned(m, source, messageId, true);
    await m.getRepository(MessageEntity).delete({ id: row.id });
    await this.events.publish(m, [
      {
        t: EventName.MessageDelete,
        guildId: source.guildId,
        channelId: row.channelId,
        d: { id: row.id, channel_id: row.channelId, guild_id: source.guildId },
      },
    ]);
    await this.sweeper.enqueue(m);
  }

  /** One of the interaction's messages as REST shows it. */
  async get(m: EntityManager, source: InteractionMessageSource, messageId: string) {
    const row = await this.owned(m, source, messageId, false);
    const [out] = await this.renderer.render(m, source.guildId, [row]);
    return out;
  }

  /** A message the interaction posted, or the one its component is on; 404 otherwise. */
  private async owned(
    m: EntityManager,
    source: InteractionMessageSource,
    messageId: string,
    lock: boolean,
  ): Promise<MessageEntity> {
    const qb = m
      .getRepository(MessageEntity)
      .createQueryBuilder('msg')
      .leftJoinAndSelect('msg.author', 'author')
      .where('msg.id = :messageId AND msg.channel_id = :channelId', {
        messageId,
        channelId: source.channelId,
      })
      .andWhere('(msg.interaction_id = :interactionId OR msg.id = :componentMessageId)', {
        interactionId: source.interactionId,
        componentMessageId: source.componentMessageId ?? '0',
      });
    // The message row only (its author is on the nullable side of the join).
    if (lock) qb.setLock('pessimistic_write', undefined, ['msg']);
    const row = await qb.getOne();
    if (!row) throw new ApiError(ErrorCode.UnknownMessage);
    return row;
  }

  private async announce(
    m: EntityManager,
    guildId: string,
    row: MessageEntity,
    t: EventName.MessageCreate | EventName.MessageUpdate,
  ): Promise<MessageResponse> {
    const [out] = await this.renderer.render(m, guildId, [row]);
    await this.events.publish(m, [messageEvent(t, guildId, out)]);
    return out;
  }

  /** Whom the content mentions, as the bot may mention them. */
  private async mentions(
    m: EntityManager,
    source: InteractionMessageSource,
    content: string,
    allowed: AllowedMentionsDto | undefined,
  ): Promise<Pick<MessageEntity, 'mentions' | 'mentionRoles' | 'mentionEveryone'>> {
    const request = requestedMentions(content, allowed);
    const bot = await this.access.access(source.botUserId, source.guildId, m);
    const permissions = bot?.permissions ?? 0n;
    const members = await this.members.membersAmong(m, source.guildId, request.userIds);
    return {
      mentions: request.userIds.flatMap((id) => members.get(id)?.user ?? []),
      mentionRoles: await guildRolesAmong(m, source.guildId, request.roleIds, permissions),
      mentionEveryone: mentionsEveryone(request, permissions),
    };
  }
}

/**
 * Content and embeds checked as every message's are (400 with the field); nothing to show at all
 * (no content, embed, component or file: `others` counts the last two) is EMPTY_MESSAGE.
 */
export function checkedDraft(
  draft: Pick<InteractionMessageDraft, 'content' | 'embeds'>,
  others: number,
): { content: string; embeds: Embed[] } {
  const embeds = draft.embeds ?? [];
  const badUrls = urlErrors(embeds);
  if (badUrls.length > 0) throw ApiError.form(badUrls);
  const normal = normalizeDraft({ content: draft.content, embeds });
  if (!normal && others === 0) throw new ApiError(ErrorCode.EmptyMessage);
  if (!normal) return { content: '', embeds: [] };
  return { content: normal.content ?? '', embeds: normal.embeds };
}
