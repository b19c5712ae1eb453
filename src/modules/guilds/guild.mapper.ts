import { toUserPartial } from '../users/user.mapper';
import type { AttachmentLinks } from './attachments/attachment-links';
import type { UserEntity } from '../users/user.entity';
import type { UserPartialResponse } from '../users/user.response';
import type { ChannelEntity } from './channel.entity';
import type { GuildMemberEntity } from './guild-member.entity';
import type { GuildEntity } from './guild.entity';
import type {
  ChannelResponse,
  GuildResponse,
  MemberResponse,
  MessageResponse,
} from './guild.response';
import type { InteractionMetadata, MessageEntity } from './message.entity';

export function toGuildResponse(g: GuildEntity): GuildResponse {
  return {
    id: g.id,
    name: g.name,
    icon: g.icon,
    banner: g.banner,
    owner_id: g.ownerId,
    created_at: g.createdAt.toISOString(),
  };
}

export function toChannelResponse(c: ChannelEntity): ChannelResponse {
  return { id: c.id, guild_id: c.guildId, name: c.name, type: c.type, position: c.position };
}

export function toMemberResponse(m: GuildMemberEntity, user: UserEntity): MemberResponse {
  return { user: toUserPartial(user), roles: m.roles, joined_at: m.joinedAt.toISOString() };
}

/** The name of a webhook's messages when neither the webhook nor the post names them. */
const WEBHOOK_DEFAULT_NAME = 'Webhook';

/** How a webhook appears as a message author. */
export function webhookAuthor(
  webhookId: string,
  name: string | null,
  avatar: string | null,
): UserPartialResponse {
  return {
    id: webhookId,
    username: name ?? WEBHOOK_DEFAULT_NAME,
    discriminator: '0000',
    global_name: null,
    avatar,
    avatar_color: null,
    flags: 0,
    bot: true,
  };
}

/**
 * `webhookAuthor` as a SQL expression (a `json`, compact), for statements that render a message's event
 * from the webhook's row: the same fields in the same order, from `webhookAuthor` itself.
 */
export function webhookAuthorSql(idExpr: string, nameExpr: string, avatarExpr: string): string {
  const fromRow: Partial<Record<keyof UserPartialResponse, string>> = {
    id: `${idExpr}::text`,
    username: `COALESCE(${nameExpr}, ${sqlLiteral(WEBHOOK_DEFAULT_NAME)})`,
    avatar: avatarExpr,
  };
  const columns = Object.entries(webhookAuthor('', null, null)).map(
    ([key, value]) =>
      `${fromRow[key as keyof UserPartialResponse] ?? sqlLiteral(value as string | number | boolean | null)} AS "${key}"`,
  );
  // row_to_json: compact, and in this order (json_build_object pads with spaces).
  return `(SELECT row_to_json(a) FROM (SELECT ${columns.join(', ')}) a)`;
}

function sqlLiteral(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `'${value.replace(/'/g, "''")}'`;
}

// Authors of deleted accounts still need a well-formed author object.
const DELETED_USER: UserPartialResponse = {
  id: '0',
  username: 'Deleted User',
  discriminator: '0000',
  global_name: null,
  avatar: null,
  avatar_color: null,
  flags: 0,
};

/** What a message row holds, however it was read (an entity, or a RETURNING row). */
export interface MessageParts {
  id: string;
  channelId: string;
  author: UserPartialResponse;
  webhookId: string | null;
  content: string;
  embeds: MessageResponse['embeds'];
  /** Absent for a fresh webhook post: none. */
  components?: MessageResponse['components'];
  /** Its files as shown (AttachmentLinks.presentAll); absent: none. */
  attachments?: MessageResponse['attachments'];
  mentions: UserPartialResponse[];
  mentionEveryone: boolean;
  /** Absent for a fresh webhook post: none. */
  mentionRoles?: string[];
  /** Absent for a fresh webhook post: not pinned. */
  pinnedAt?: Date | null;
  createdAt: Date;
  editedAt: Date | null;
  /** Absent for a fresh webhook post: 0. */
  type?: number;
  flags?: number;
  /** An interaction's message: the application (also shown as `webhook_id`) and the metadata. */
  applicationId?: string | null;
  interactionMetadata?: InteractionMetadata | null;
}

export function toMessageFromParts(m: MessageParts): MessageResponse {
  const out: MessageResponse = {
    id: m.id,
    channel_id: m.channelId,
    type: m.type ?? 0,
    content: m.content,
    embeds: m.embeds,
    author: m.author,
    created_at: m.createdAt.toISOString(),
    timestamp: m.createdAt.toISOString(),
    edited_timestamp: m.editedAt ? m.editedAt.toISOString() : null,
    tts: false,
    mention_everyone: m.mentionEveryone,
    mentions: m.mentions,
    mention_roles: m.mentionRoles ?? [],
    attachments: m.attachments ?? [],
    components: m.components ?? [],
    pinned: m.pinnedAt != null,
    flags: m.flags ?? 0,
  };
  if (m.webhookId) out.webhook_id = m.webhookId;
  if (m.applicationId) asInteractionMessage(out, m.applicationId, m.interactionMetadata ?? null);
  return out;
}

/**
 * An interaction's message as Discord shows it: `application_id`, the application's id as
 * `webhook_id` (follow-ups and edits go through its interaction webhook), `interaction_metadata`
 * and the older `interaction` object (discord.py 2.2 finds a view's message by its `id`).
 */
function asInteractionMessage(
  out: MessageResponse,
  applicationId: string,
  metadata: InteractionMetadata | null,
): void {
  out.application_id = applicationId;
  if (!metadata) return;
  out.webhook_id = applicationId;
  out.interaction_metadata = metadata;
  out.interaction = {
    id: metadata.id,
    type: metadata.type,
    name: metadata.name ?? '',
    user: metadata.user,
  };
}

/** Message type of a reply (Discord's REPLY). */
export const MESSAGE_TYPE_REPLY = 19;

/**
 * Makes `out` the reply it is: type 19, Discord's `message_reference`, and `referenced_message`
 * (the answered message as it is now, without its own reference; null once it was deleted).
 */
export function asReply(
  out: MessageResponse,
  guildId: string,
  referenceId: string,
  referenced: MessageResponse | null,
): MessageResponse {
  out.type = MESSAGE_TYPE_REPLY;
  out.message_reference = {
    type: 0,
    message_id: referenceId,
    channel_id: out.channel_id,
    guild_id: guildId,
  };
  if (referenced) {
    const { referenced_message: _nested, ...flat } = referenced;
    out.referenced_message = flat;
  } else out.referenced_message = null;
  return out;
}

/** Shows a message's stored attachments with signed links (AttachmentLinks). */
export type AttachmentPresenter = Pick<AttachmentLinks, 'presentAll'>;

/** Maps a message; `author` must be loaded for user messages. */
export function toMessageResponse(m: MessageEntity, links: AttachmentPresenter): MessageResponse {
  return toMessageFromParts({
    ...m,
    attachments: links.presentAll(m.channelId, m.attachments),
    author: m.webhookId
      ? webhookAuthor(m.webhookId, m.webhookName, m.webhookAvatar)
      : m.author
        ? toUserPartial(m.author)
        : DELETED_USER,
  });
}
