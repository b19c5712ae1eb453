import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, type EntityManager } from 'typeorm';
import type { Caller } from '../../common/auth/caller';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import { EventName, type RealtimeEvent } from '../../infra/events/realtime-event';
import { UserEntity } from '../users/user.entity';
import type { CreateMessageDto, MessageReferenceDto } from './dto/create-message.dto';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import type { EditMessageDto } from './dto/edit-message.dto';
import type { ListMessagesQueryDto } from './dto/list-messages.dto';
import type { ActionRow } from './components/component-types';
import { messageComponentsOf } from './components/components';
import { normalizeDraft, urlErrors, type MessageDraft } from './embeds/embed';
import { GuildAccessService } from './guild-access.service';
import { GuildMembersService } from './guild-members.service';
import { asReply, toMessageFromParts, toMessageResponse } from './guild.mapper';
import { guildRolesAmong, mentionsEveryone, requestedMentions } from './message-mentions';
import type { UploadedFiles } from '../../common/http/multipart';
import { AttachmentLinks } from './attachments/attachment-links';
import { AttachmentStore, type ReceivedFile } from './attachments/attachment-store';
import { MessageFiles } from './attachments/message-files';
import { MessageRenderer, withMembers } from './message-renderer';
import {
  WebhookMessagesWriter,
  type WebhookPost,
  type WebhookPostOutcome,
} from './webhook-messages.writer';
import type { MessageResponse } from './guild.response';
import { MessageEntity } from './message.entity';
import { MessagePurge } from './message-purge';
import { hasPermission, Permissions } from './permissions';

export const DEFAULT_MESSAGE_LIMIT = 50;
/** Messages rewritten (and announced) per statement when a guild's webhook avatars are purged. */
const AVATAR_CLEAR_CHUNK = 500;
/** A post repeated with the same nonce under `enforce_nonce` returns the first within this. */
const NONCE_WINDOW = '5 minutes';

/**
 * The one owner of messages: every message is written here — by users and bots (REST) and by
 * webhooks (the group-committed INSERT) — and every write publishes its realtime event
 * (MESSAGE_CREATE/UPDATE/DELETE) once committed.
 */
@Injectable()
export class MessagesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: GuildAccessService,
    private readonly snowflakes: SnowflakeService,
    private readonly events: RealtimeEvents,
    private readonly webhookWriter: WebhookMessagesWriter,
    private readonly members: GuildMembersService,
    private readonly renderer: MessageRenderer,
    private readonly purge: MessagePurge,
    private readonly links: AttachmentLinks,
    private readonly store: AttachmentStore,
    private readonly files: MessageFiles,
  ) {}

  /**
   * Newest first. `before`/`after` are exclusive id cursors; with `after` alone the page is the
   * `limit` messages right after it (still returned newest first), as in Discord.
   */
  async list(
    userId: string,
    channelId: string,
    query: ListMessagesQueryDto,
  ): Promise<MessageResponse[]> {
    const access = await this.access.requireChannelPermission(
      userId,
      channelId,
      Permissions.VIEW_CHANNEL | Permissions.READ_MESSAGE_HISTORY,
    );
    const limit = query.limit ?? DEFAULT_MESSAGE_LIMIT;
    const ascending = query.after !== undefined && query.before === undefined;
    const qb = this.dataSource
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .leftJoinAndSelect('m.author', 'author')
      .where('m.channel_id = :channelId', { channelId })
      .orderBy('m.id', ascending ? 'ASC' : 'DESC')
      .limit(limit);
    if (query.before !== undefined) qb.andWhere('m.id < :before', { before: query.before });
    if (query.after !== undefined) qb.andWhere('m.id > :after', { after: query.after });
    const rows = await qb.getMany();
    if (ascending) rows.reverse();
    return this.renderer.render(this.dataSource.manager, access.guildId, rows, userId);
  }

  /** One message. Needs VIEW_CHANNEL and READ_MESSAGE_HISTORY. */
  async get(userId: string, channelId: string, messageId: string): Promise<MessageResponse> {
    const access = await this.access.requireChannelPermission(
      userId,
      channelId,
      Permissions.VIEW_CHANNEL | Permissions.READ_MESSAGE_HISTORY,
    );
    const manager = this.dataSource.manager;
    const [out] = await this.renderer.render(
      manager,
      access.guildId,
      [await this.findInChannel(manager, channelId, messageId)],
      userId,
    );
    return out;
  }

  /**
   * Needs VIEW_CHANNEL and SEND_MESSAGES; content, an embed or (bots) components. Mentions take
   * effect as `allowed_mentions` lets them; with `enforce_nonce` a repeated post returns the first.
   */
  async create(
    caller: Caller,
    channelId: string,
    dto: CreateMessageDto,
    uploads: UploadedFiles<ReceivedFile> | null = null,
  ): Promise<MessageResponse> {
    const userId = caller.userId;
    const components = messageComponentsOf(dto.components, caller.kind === 'bot') ?? [];
    const access = await this.access.requireChannelPermission(
      userId,
      channelId,
      Permissions.VIEW_CHANNEL | Permissions.SEND_MESSAGES,
    );
    const files = uploads?.files ?? [];
    const uploaded = (dto.attachments ?? []).some((r) => r.uploaded_filename !== undefined);
    const draft = this.draftOf(
      dto.content,
      dto.embeds ?? [],
      components,
      files.length > 0 || uploaded,
    );
    const content = draft.content ?? '';
    const request = requestedMentions(content, dto.allowed_mentions);
    const referenced = dto.message_reference
      ? await this.referencedMessage(channelId, access.guildId, dto.message_reference)
      : null;
    // Discord's default (`allowed_mentions.replied_user`): a reply mentions whom it answers.
    const repliedTo = referenced && !referenced.webhook_id ? referenced.author.id : null;
    if (repliedTo && request.repliedUser && !request.userIds.includes(repliedTo)) {
      request.userIds.push(repliedTo);
    }
    const manager = this.dataSource.manager;
    const [members, mentionRoles] = await Promise.all([
      this.members.membersAmong(manager, access.guildId, [userId, ...request.userIds]),
      guildRolesAmong(manager, access.guildId, request.roleIds, access.permissions),
    ]);
    const author = members.get(userId);
    if (!author) throw new ApiError(ErrorCode.UnknownChannel);
    const nonce = dto.enforce_nonce && dto.nonce !== undefined ? String(dto.nonce) : null;
    const message = this.dataSource.getRepository(MessageEntity).create({
      id: this.snowflakes.next(),
      channelId,
      authorId: userId,
      webhookId: null,
      webhookName: null,
      webhookAvatar: null,
      content,
      embeds: draft.embeds,
      components,
      attachments: [],
      mentions: request.userIds.flatMap((id) => members.get(id)?.user ?? []),
      mentionEveryone: mentionsEveryone(request, access.permissions),
      mentionRoles,
      pinnedAt: null,
      nonce,
      referenceId: referenced?.id ?? null,
      createdAt: new Date(),
      editedAt: null,
    });
    const out = withMembers(
      toMessageFromParts({
        ...message,
        author: author.user,
        attachments: this.links.presentAll(channelId, message.attachments),
      }),
      members,
    );
    if (referenced) asReply(out, access.guildId, referenced.id, referenced);
    if (dto.nonce !== undefined) out.nonce = dto.nonce;
    const posted = await this.dataSource.transaction(async (m) => {
      if (nonce !== null) {
        const earlier = await this.postedWithNonce(m, access.guildId, channelId, userId, nonce);
        if (earlier) return earlier;
      }
      const plan = await this.files.plan(m, userId, channelId, dto.attachments, files, []);
      message.attachments = plan.attachments;
      out.attachments = this.links.presentAll(channelId, plan.attachments);
      await m.getRepository(MessageEntity).insert(message);
      await this.store.settle(m, message.id, plan);
      await this.events.publish(m, [messageEvent(EventName.MessageCreate, access.guildId, out)]);
      return out;
    });
    // A repeated nonce answered the first message: this request's files are not used.
    if (posted === out) uploads?.keep();
    return posted;
  }

  /**
   * The message `userId` posted in the channel with `nonce` under `enforce_nonce` within the
   * window, as REST shows it, or null. Concurrent posts with one nonce take turns (a lock held
   * to the end of the transaction), so the second finds the first once it committed.
   */
  private async postedWithNonce(
    m: EntityManager,
    guildId: string,
    channelId: string,
    userId: string,
    nonce: string,
  ): Promise<MessageResponse | null> {
    await m.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `nonce:${channelId}:${userId}:${nonce}`,
    ]);
    const earlier = await m
      .getRepository(MessageEntity)
      .createQueryBuilder('msg')
      .leftJoinAndSelect('msg.author', 'author')
      .where('msg.channel_id = :channelId AND msg.nonce = :nonce AND msg.author_id = :userId', {
        channelId,
        nonce,
        userId,
      })
      .andWhere(`msg.created_at > now() - interval '${NONCE_WINDOW}'`)
      .getOne();
    if (!earlier) return null;
    const [out] = await this.renderer.render(m, guildId, [earlier]);
    out.nonce = nonce;
    return out;
  }

  /**
   * The author edits content, embeds and/or (bots) components (anyone else: 403, as in Discord —
   * MANAGE_MESSAGES does not allow editing). The result must still have something to show.
   */
  async edit(
    caller: Caller,
    channelId: string,
    messageId: string,
    dto: EditMessageDto,
    uploads: UploadedFiles<ReceivedFile> | null = null,
  ): Promise<MessageResponse> {
    const userId = caller.userId;
    const components = messageComponentsOf(dto.components, caller.kind === 'bot');
    const access = await this.access.requireChannelPermission(
      userId,
      channelId,
      Permissions.VIEW_CHANNEL,
    );
    const edited = await this.dataSource.transaction(async (manager) => {
      const message = await this.findInChannel(manager, channelId, messageId, true);
      if (message.webhookId !== null || message.authorId !== userId) {
        throw new ApiError(ErrorCode.CannotEditOthersMessage);
      }
      message.components = components ?? message.components;
      const plan = await this.files.plan(
        manager,
        userId,
        channelId,
        dto.attachments,
        uploads?.files ?? [],
        message.attachments,
      );
      message.attachments = plan.attachments;
      const draft = this.draftOf(
        dto.content ?? message.content,
        dto.embeds ?? message.embeds,
        message.components,
        message.attachments.length > 0,
      );
      message.content = draft.content ?? '';
      message.embeds = draft.embeds;
      if (dto.content !== undefined) {
        const request = requestedMentions(message.content, undefined);
        const members = await this.members.membersAmong(manager, access.guildId, request.userIds);
        message.mentions = request.userIds.flatMap((id) => members.get(id)?.user ?? []);
        message.mentionRoles = await guildRolesAmong(
          manager,
          access.guildId,
          request.roleIds,
          access.permissions,
        );
        message.mentionEveryone = mentionsEveryone(request, access.permissions);
      }
      message.editedAt = new Date();
      await manager.getRepository(MessageEntity).update(
        { id: message.id },
        {
          content: message.content,
          embeds: message.embeds,
          components: message.components,
          attachments: message.attachments,
          mentions: message.mentions,
          mentionRoles: message.mentionRoles,
          mentionEveryone: message.mentionEveryone,
          editedAt: message.editedAt,
        },
      );
      await this.store.settle(manager, message.id, plan);
      const [out] = await this.renderer.render(manager, access.guildId, [message]);
      await this.events.publish(manager, [
        messageEvent(EventName.MessageUpdate, access.guildId, out),
      ]);
      return out;
    });
    uploads?.keep();
    return (await this.renderer.withReactions([edited], userId))[0];
  }

  /** The author deletes their message; anyone else needs MANAGE_MESSAGES. */
  async delete(userId: string, channelId: string, messageId: string): Promise<void> {
    const access = await this.access.requireChannelPermission(
      userId,
      channelId,
      Permissions.VIEW_CHANNEL,
    );
    await this.dataSource.transaction(async (manager) => {
      const message = await this.findInChannel(manager, channelId, messageId, true);
      const own = message.webhookId === null && message.authorId === userId;
      if (!own && !hasPermission(access.permissions, Permissions.MANAGE_MESSAGES)) {
        throw new ApiError(ErrorCode.MissingPermissions);
      }
      await manager.getRepository(MessageEntity).delete({ id: message.id });
      await this.events.publish(manager, [
        {
          t: EventName.MessageDelete,
          guildId: access.guildId,
          channelId,
          d: { id: message.id, channel_id: channelId, guild_id: access.guildId },
        },
      ]);
      await this.purge.filesFollow(manager);
    });
  }

  /** A ban's message deletion: `authorId`'s messages in the guild since `since` (MESSAGE_DELETE_BULK). */
  deleteRecentBy(
    m: EntityManager,
    guildId: string,
    authorId: string,
    since: Date,
  ): Promise<number> {
    return this.purge.byAuthorSince(m, guildId, authorId, since);
  }

  /**
   * Posts a webhook's message (every webhook route: plain and the foreign formats): one statement
   * shared with concurrent posts (WebhookMessagesWriter) that writes it with its MESSAGE_CREATE.
   */
  postAsWebhook(post: WebhookPost): Promise<WebhookPostOutcome> {
    return this.webhookWriter.post(post);
  }

  /**
   * The admin asset purge removed a guild's webhook avatars: the messages that show one (a
   * stored avatar's hash, 32 hex digits; an `avatar_url` given on execute is a URL and stays)
   * show none from now on, each announced (MESSAGE_UPDATE), in chunks. Returns how many.
   */
  async clearWebhookAvatars(m: EntityManager, guildId: string): Promise<number> {
    let total = 0;
    for (;;) {
      // TypeORM answers an UPDATE with [rows, affected].
      const [rows] = await m.query<[Array<{ id: string }>, number]>(
        `UPDATE messages SET webhook_avatar = NULL
          WHERE id IN (SELECT msg.id FROM messages msg JOIN channels c ON c.id = msg.channel_id
                        WHERE c.guild_id = $1 AND msg.webhook_id IS NOT NULL
                          AND msg.webhook_avatar ~ '^[0-9a-f]{32}$'
                        LIMIT $2)
          RETURNING id::text AS id`,
        [guildId, AVATAR_CLEAR_CHUNK],
      );
      if (rows.length === 0) return total;
      total += rows.length;
      const messages = await m.findBy(MessageEntity, { id: In(rows.map((r) => r.id)) });
      await this.events.publish(
        m,
        messages.map((msg) =>
          messageEvent(EventName.MessageUpdate, guildId, toMessageResponse(msg, this.links)),
        ),
      );
    }
  }

  /**
   * The message a new reply answers, as REST shows it (and so as `referenced_message`): one of
   * the same channel. Missing → 400 MESSAGE_REFERENCE_UNKNOWN_MESSAGE, or with
   * `fail_if_not_exists: false` null (the message is posted as a plain one, as on Discord).
   */
  private async referencedMessage(
    channelId: string,
    guildId: string,
    ref: MessageReferenceDto,
  ): Promise<MessageResponse | null> {
    const elsewhere =
      (ref.channel_id != null && ref.channel_id !== channelId) ||
      (ref.guild_id != null && ref.guild_id !== guildId);
    const found = elsewhere
      ? null
      : await this.findInChannel(this.dataSource.manager, channelId, ref.message_id).catch(
          (err: unknown) => {
            if (err instanceof ApiError && err.code === ErrorCode.UnknownMessage) return null;
            throw err;
          },
        );
    if (found) return toMessageResponse(found, this.links);
    if (ref.fail_if_not_exists === false && !elsewhere) return null;
    throw ApiError.field('message_reference', FieldErrorCode.MessageReferenceUnknownMessage);
  }

  /** Content and embeds to store; a message needs one of them, components or files. */
  private draftOf(
    content: string | undefined,
    embeds: MessageDraft['embeds'],
    components: ActionRow[],
    hasAttachments: boolean,
  ): MessageDraft {
    const badUrls = urlErrors(embeds);
    if (badUrls.length > 0) throw ApiError.form(badUrls);
    const draft = normalizeDraft({ content, embeds });
    if (!draft && components.length === 0 && !hasAttachments) {
      throw new ApiError(ErrorCode.EmptyMessage);
    }
    return draft ?? { embeds: [] };
  }

  /**
   * A message of the channel (404 UNKNOWN_MESSAGE otherwise), locked when about to change (or
   * when what hangs on it is: its reactions).
   */
  async findInChannel(
    manager: EntityManager,
    channelId: string,
    messageId: string,
    lock = false,
  ): Promise<MessageEntity> {
    const qb = manager
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .where('m.id = :messageId AND m.channel_id = :channelId', { messageId, channelId });
    if (lock) qb.setLock('pessimistic_write');
    const message = await qb.getOne();
    if (!message) throw new ApiError(ErrorCode.UnknownMessage);
    if (message.authorId) {
      message.author = await manager.getRepository(UserEntity).findOneBy({ id: message.authorId });
    }
    return message;
  }
}

/** MESSAGE_CREATE/UPDATE: the message as REST returns it, plus `guild_id` (Discord's shape). */
export function messageEvent(
  t: EventName.MessageCreate | EventName.MessageUpdate,
  guildId: string,
  message: MessageResponse,
): RealtimeEvent {
  return {
    t,
    guildId,
    channelId: message.channel_id,
    authorId: message.author.id,
    mentionIds: message.mentions.map((u) => u.id),
    d: { ...message, guild_id: guildId },
  };
}
