import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { GroupCommit } from '../../database/group-commit';
import { PreparedStatement } from '../../database/prepared';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import type { RealtimeEvent } from '../../infra/events/realtime-event';
import { UserEntity } from '../users/user.entity';
import { toUserPartial } from '../users/user.mapper';
import type { UserPartialResponse } from '../users/user.response';
import type { CreateMessageDto } from './dto/create-message.dto';
import type { EditMessageDto } from './dto/edit-message.dto';
import type { ListMessagesQueryDto } from './dto/list-messages.dto';
import { normalizeDraft, urlErrors, type MessageDraft } from './embeds/embed';
import { GuildAccessService } from './guild-access.service';
import { GuildMemberEntity } from './guild-member.entity';
import { toMessageFromParts, toMessageResponse, webhookAuthor } from './guild.mapper';
import type { MessageResponse } from './guild.response';
import { MessageEntity } from './message.entity';
import { hasPermission, Permissions } from './permissions';
import { Metrics } from '../../infra/metrics/metrics';

export const DEFAULT_MESSAGE_LIMIT = 50;
/** At most this many distinct users are resolved from `<@id>` mentions in one message. */
const MAX_MENTIONS = 100;
const USER_MENTION = /<@!?(\d{1,20})>/g;
const EVERYONE_MENTION = /@(everyone|here)\b/;

/**
 * A webhook message to insert. The INSERT re-checks the webhook as it is now: its token
 * (`tokenHash`) and, on signed routes, the sealed signing secret the delivery was checked against
 * (`secretCheck`; undefined on routes that take no signature).
 */
export interface WebhookPost {
  webhookId: string;
  tokenHash: Buffer;
  secretCheck: { sealed: string | null } | undefined;
  draft: MessageDraft;
}

interface PendingWebhookMessage extends WebhookPost {
  id: string;
}

interface InsertedRow {
  id: string;
  channel_id: string;
  guild_id: string;
  webhook_name: string | null;
  webhook_avatar: string | null;
  created_at: Date;
}

// One statement both posts and re-checks the webhook: if it was deleted (on any instance) or its
// token no longer matches, nothing is inserted; on signed routes ($8) neither is anything when the
// signing secret is no longer the one the delivery was checked against ($9, sealed; null = none).
// Channel, name and avatar come from the row as it is now, so a move or rename elsewhere is
// honoured without cache invalidation. The guild comes back for the MESSAGE_CREATE event.
const INSERT_WEBHOOK_MESSAGE = new PreparedStatement<InsertedRow>(
  'parley_insert_webhook_message_v2',
  `
  WITH inserted AS (
    INSERT INTO messages (id, channel_id, author_id, webhook_id, webhook_name, webhook_avatar, content, embeds)
    SELECT $1, w.channel_id, NULL, w.id, COALESCE($3::varchar, w.name), COALESCE($4::text, w.avatar), $5, $6::jsonb
      FROM webhooks w
     WHERE w.id = $2 AND w.token_hash = $7
       AND (NOT $8::boolean OR w.signing_secret_encrypted IS NOT DISTINCT FROM $9::text)
    RETURNING id, channel_id, webhook_name, webhook_avatar, created_at)
  SELECT i.id::text AS id, i.channel_id::text AS channel_id, c.guild_id::text AS guild_id,
         i.webhook_name, i.webhook_avatar, i.created_at
    FROM inserted i JOIN channels c ON c.id = i.channel_id`,
);

// The same for a batch of messages (group commit): one statement, one commit, whatever the batch
// size. Rows whose webhook vanished or whose token no longer matches are simply not returned.
const INSERT_WEBHOOK_MESSAGES = new PreparedStatement<InsertedRow>(
  'parley_insert_webhook_messages_v2',
  `
  WITH inserted AS (
    INSERT INTO messages (id, channel_id, author_id, webhook_id, webhook_name, webhook_avatar, content, embeds)
    SELECT v.id, w.channel_id, NULL, w.id, COALESCE(v.name, w.name), COALESCE(v.avatar, w.avatar), v.content, v.embeds
      FROM unnest($1::bigint[], $2::bigint[], $3::varchar[], $4::text[], $5::varchar[], $6::jsonb[], $7::bytea[],
                  $8::boolean[], $9::text[])
           AS v(id, webhook_id, name, avatar, content, embeds, token_hash, check_secret, secret)
      JOIN webhooks w ON w.id = v.webhook_id AND w.token_hash = v.token_hash
       AND (NOT v.check_secret OR w.signing_secret_encrypted IS NOT DISTINCT FROM v.secret)
    RETURNING id, channel_id, webhook_name, webhook_avatar, created_at)
  SELECT i.id::text AS id, i.channel_id::text AS channel_id, c.guild_id::text AS guild_id,
         i.webhook_name, i.webhook_avatar, i.created_at
    FROM inserted i JOIN channels c ON c.id = i.channel_id`,
);

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
    private readonly metrics: Metrics,
  ) {}

  /** Webhook messages posted within the same moment share one INSERT and one commit (ARCHITECTURE.md §7). */
  private readonly webhookWriter = new GroupCommit<PendingWebhookMessage, InsertedRow | null>(
    (batch) => {
      this.metrics.groupCommitBatch('webhook_messages', batch.length);
      return this.insertWebhookBatch(batch);
    },
    { maxBatch: 500, maxInFlight: 4 },
  );

  /**
   * Newest first. `before`/`after` are exclusive id cursors; with `after` alone the page is the
   * `limit` messages right after it (still returned newest first), as in Discord.
   */
  async list(
    userId: string,
    channelId: string,
    query: ListMessagesQueryDto,
  ): Promise<MessageResponse[]> {
    await this.access.requireChannelPermission(
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
    return rows.map(toMessageResponse);
  }

  /** One message. Needs VIEW_CHANNEL and READ_MESSAGE_HISTORY. */
  async get(userId: string, channelId: string, messageId: string): Promise<MessageResponse> {
    await this.access.requireChannelPermission(
      userId,
      channelId,
      Permissions.VIEW_CHANNEL | Permissions.READ_MESSAGE_HISTORY,
    );
    return toMessageResponse(await this.find(this.dataSource.manager, channelId, messageId));
  }

  /** Needs VIEW_CHANNEL and SEND_MESSAGES; content or at least one embed. */
  async create(userId: string, channelId: string, dto: CreateMessageDto): Promise<MessageResponse> {
    const access = await this.access.requireChannelPermission(
      userId,
      channelId,
      Permissions.VIEW_CHANNEL | Permissions.SEND_MESSAGES,
    );
    const draft = this.draftOf(dto.content, dto.embeds ?? []);
    const author = await this.dataSource.getRepository(UserEntity).findOneByOrFail({ id: userId });
    const content = draft.content ?? '';
    const message = this.dataSource.getRepository(MessageEntity).create({
      id: this.snowflakes.next(),
      channelId,
      authorId: userId,
      webhookId: null,
      webhookName: null,
      webhookAvatar: null,
      content,
      embeds: draft.embeds,
      mentions: await this.mentionedMembers(access.guildId, content),
      mentionEveryone:
        EVERYONE_MENTION.test(content) &&
        hasPermission(access.permissions, Permissions.MENTION_EVERYONE),
      createdAt: new Date(),
      editedAt: null,
    });
    await this.dataSource.getRepository(MessageEntity).insert(message);
    message.author = author;
    const out = toMessageResponse(message);
    if (dto.nonce !== undefined) out.nonce = dto.nonce;
    this.events.publish(undefined, [messageEvent('MESSAGE_CREATE', access.guildId, out)]);
    return out;
  }

  /**
   * The author edits content and/or embeds (anyone else: 403, as in Discord — MANAGE_MESSAGES
   * does not allow editing). The result must still have content or an embed.
   */
  async edit(
    userId: string,
    channelId: string,
    messageId: string,
    dto: EditMessageDto,
  ): Promise<MessageResponse> {
    const access = await this.access.requireChannelPermission(
      userId,
      channelId,
      Permissions.VIEW_CHANNEL,
    );
    return this.dataSource.transaction(async (manager) => {
      const message = await this.find(manager, channelId, messageId, true);
      if (message.webhookId !== null || message.authorId !== userId) {
        throw new ApiError(ErrorCode.CannotEditOthersMessage);
      }
      const draft = this.draftOf(dto.content ?? message.content, dto.embeds ?? message.embeds);
      message.content = draft.content ?? '';
      message.embeds = draft.embeds;
      if (dto.content !== undefined) {
        message.mentions = await this.mentionedMembers(access.guildId, message.content, manager);
        message.mentionEveryone =
          EVERYONE_MENTION.test(message.content) &&
          hasPermission(access.permissions, Permissions.MENTION_EVERYONE);
      }
      message.editedAt = new Date();
      await manager.getRepository(MessageEntity).update(
        { id: message.id },
        {
          content: message.content,
          embeds: message.embeds,
          mentions: message.mentions,
          mentionEveryone: message.mentionEveryone,
          editedAt: message.editedAt,
        },
      );
      const out = toMessageResponse(message);
      this.events.publish(manager, [messageEvent('MESSAGE_UPDATE', access.guildId, out)]);
      return out;
    });
  }

  /** The author deletes their message; anyone else needs MANAGE_MESSAGES. */
  async delete(userId: string, channelId: string, messageId: string): Promise<void> {
    const access = await this.access.requireChannelPermission(
      userId,
      channelId,
      Permissions.VIEW_CHANNEL,
    );
    await this.dataSource.transaction(async (manager) => {
      const message = await this.find(manager, channelId, messageId, true);
      const own = message.webhookId === null && message.authorId === userId;
      if (!own && !hasPermission(access.permissions, Permissions.MANAGE_MESSAGES)) {
        throw new ApiError(ErrorCode.MissingPermissions);
      }
      await manager.getRepository(MessageEntity).delete({ id: message.id });
      this.events.publish(manager, [
        {
          t: 'MESSAGE_DELETE',
          guildId: access.guildId,
          channelId,
          d: { id: message.id, channel_id: channelId, guild_id: access.guildId },
        },
      ]);
    });
  }

  /**
   * Posts a webhook's message (every webhook route: plain and the foreign formats); null when the
   * webhook vanished, its token changed or — on signed routes — its signing secret changed since
   * the delivery was checked.
   */
  async postAsWebhook(post: WebhookPost): Promise<MessageResponse | null> {
    const row = await this.webhookWriter.submit({ ...post, id: this.snowflakes.next() });
    if (!row) return null;
    const out = toMessageFromParts({
      id: row.id,
      channelId: row.channel_id,
      author: webhookAuthor(post.webhookId, row.webhook_name, row.webhook_avatar),
      webhookId: post.webhookId,
      content: post.draft.content ?? '',
      embeds: post.draft.embeds,
      mentions: [],
      mentionEveryone: false,
      createdAt: new Date(row.created_at),
      editedAt: null,
    });
    this.events.publish(undefined, [messageEvent('MESSAGE_CREATE', row.guild_id, out)]);
    return out;
  }

  private draftOf(content: string | undefined, embeds: MessageDraft['embeds']): MessageDraft {
    const badUrls = urlErrors(embeds);
    if (badUrls.length > 0) throw ApiError.form(badUrls);
    const draft = normalizeDraft({ content, embeds });
    if (!draft) throw new ApiError(ErrorCode.EmptyMessage);
    return draft;
  }

  /** A message of the channel (404 UNKNOWN_MESSAGE otherwise), locked when about to change. */
  private async find(
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

  /** The members of the guild that `<@id>` mentions in `content` name, as user partials. */
  private async mentionedMembers(
    guildId: string,
    content: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<UserPartialResponse[]> {
    const ids = [...new Set([...content.matchAll(USER_MENTION)].map((m) => m[1]))].slice(
      0,
      MAX_MENTIONS,
    );
    if (ids.length === 0) return [];
    const users = await manager
      .getRepository(UserEntity)
      .createQueryBuilder('u')
      .innerJoin(GuildMemberEntity, 'gm', 'gm.user_id = u.id AND gm.guild_id = :guildId', {
        guildId,
      })
      .where('u.id IN (:...ids)', { ids })
      .getMany();
    const byId = new Map(users.map((u) => [u.id, u]));
    return ids.flatMap((id) => {
      const user = byId.get(id);
      return user ? [toUserPartial(user)] : [];
    });
  }

  /** Writes a batch; a batch the database refuses is retried row by row, so one bad row fails alone. */
  private async insertWebhookBatch(
    batch: PendingWebhookMessage[],
  ): Promise<Array<InsertedRow | null | Error>> {
    if (batch.length === 1) return [await this.insertWebhookMessage(batch[0])];
    let rows: InsertedRow[];
    try {
      rows = await INSERT_WEBHOOK_MESSAGES.run(this.dataSource, [
        batch.map((m) => m.id),
        batch.map((m) => m.webhookId),
        batch.map((m) => m.draft.username ?? null),
        batch.map((m) => m.draft.avatar_url ?? null),
        batch.map((m) => m.draft.content ?? ''),
        batch.map((m) => JSON.stringify(m.draft.embeds)),
        batch.map((m) => m.tokenHash),
        batch.map((m) => m.secretCheck !== undefined),
        batch.map((m) => m.secretCheck?.sealed ?? null),
      ]);
    } catch {
      return Promise.all(batch.map((m) => this.insertWebhookMessage(m).catch((e: Error) => e)));
    }
    const byId = new Map(rows.map((r) => [r.id, r]));
    return batch.map((m) => byId.get(m.id) ?? null);
  }

  private async insertWebhookMessage(m: PendingWebhookMessage): Promise<InsertedRow | null> {
    const rows = await INSERT_WEBHOOK_MESSAGE.run(this.dataSource, [
      m.id,
      m.webhookId,
      m.draft.username ?? null,
      m.draft.avatar_url ?? null,
      m.draft.content ?? '',
      JSON.stringify(m.draft.embeds),
      m.tokenHash,
      m.secretCheck !== undefined,
      m.secretCheck?.sealed ?? null,
    ]);
    return rows[0] ?? null;
  }
}

/** MESSAGE_CREATE/UPDATE: the message as REST returns it, plus `guild_id` (Discord's shape). */
function messageEvent(
  t: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE',
  guildId: string,
  message: MessageResponse,
): RealtimeEvent {
  return {
    t,
    guildId,
    channelId: message.channel_id,
    d: { ...message, guild_id: guildId },
  };
}
