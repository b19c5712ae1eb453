import { ApiProperty, OmitType } from '@nestjs/swagger';
import { AttachmentResponse } from './attachments/attachment.response';
import { UserPartialResponse } from '../users/user.response';
import { ActionRowDto } from './dto/component.dto';
import { EmbedDto } from './dto/embed.dto';
import { ReactionResponse } from './reactions/reaction.response';

export class GuildResponse {
  @ApiProperty({ example: '1234567890123456789' })
  id: string;
  name: string;
  /** Icon hash. */
  icon: string | null;
  /** Banner hash. */
  banner: string | null;
  owner_id: string;
  created_at: string;
}

export class ChannelResponse {
  id: string;
  guild_id: string;
  name: string;
  /** 0 = guild text channel. */
  @ApiProperty({ example: 0 })
  type: number;
  position: number;
}

export class MemberResponse {
  user: UserPartialResponse;
  /** Role ids (besides @everyone). */
  @ApiProperty({ type: [String] })
  roles: string[];
  joined_at: string;
}

/**
 * Discord's whole guild member object (`GET /guilds/{id}/members…`), as in `GUILD_CREATE`: the
 * fields Parley has no notion of yet are present with Discord's neutral values.
 */
export class GuildMemberResponse extends MemberResponse {
  /** The member's nickname in this guild, null for none. */
  @ApiProperty({ type: String, nullable: true, example: null })
  nick: string | null;
  /** Always null (no per-guild avatars). */
  @ApiProperty({ type: String, nullable: true, example: null })
  avatar: string | null;
  /** Always null. */
  @ApiProperty({ type: String, nullable: true, example: null })
  banner: string | null;
  /** Always null. */
  @ApiProperty({ type: String, nullable: true, example: null })
  premium_since: string | null;
  /** Always false. */
  deaf: boolean;
  /** Always false. */
  mute: boolean;
  /** GuildMemberFlags: always 0. */
  flags: number;
  /** Always false (no membership screening). */
  pending: boolean;
  /** Always null (no timeouts yet). */
  @ApiProperty({ type: String, nullable: true, example: null })
  communication_disabled_until: string | null;
}

/** A member as Discord shows one on a guild message (author, mentions): without `user`. */
export class MessageMemberResponse extends OmitType(GuildMemberResponse, ['user'] as const) {}

/** A user a message mentions, with their membership of the guild (Discord's shape). */
export class MentionResponse extends UserPartialResponse {
  /** Their membership as it is now (absent once they left the guild). */
  @ApiProperty({ required: false, type: () => MessageMemberResponse })
  member?: MessageMemberResponse;
}

/** A message author: a user, or for webhook messages the webhook dressed as a bot user. */
export class MessageAuthorResponse extends UserPartialResponse {}

/** Discord's message reference of a reply. */
export class MessageReferenceResponse {
  /** 0: a reply (Discord's DEFAULT reference type). */
  @ApiProperty({ example: 0 })
  type: number;
  @ApiProperty({ example: '1234567890123456789' })
  message_id: string;
  channel_id: string;
  guild_id: string;
}

/** Discord's message interaction object (deprecated there, still sent and still read). */
export class MessageInteractionResponse {
  /** The interaction's id. */
  id: string;
  /** Its type: 2 application command, 3 component, 5 modal submit. */
  type: number;
  /** The command's name (empty for components and modals). */
  name: string;
  /** Who invoked it. */
  user: UserPartialResponse;
}

/** Discord's message interaction metadata. */
export class MessageInteractionMetadataResponse {
  id: string;
  /** 2 application command, 3 component, 5 modal submit. */
  type: number;
  user: UserPartialResponse;
  /** Where it was authorised: `{"0": guild_id}` (guild install). */
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  authorizing_integration_owners: Record<string, string>;
  @ApiProperty({ required: false })
  name?: string;
  /** The command's type (1 chat input, 2 user, 3 message). */
  @ApiProperty({ required: false })
  command_type?: number;
  /** For a follow-up: the interaction's original response. */
  @ApiProperty({ required: false })
  original_response_message_id?: string;
  /** For a component's interaction: the message the component is on. */
  @ApiProperty({ required: false })
  interacted_message_id?: string;
  /** For a user command: its target. */
  @ApiProperty({ required: false, type: () => UserPartialResponse })
  target_user?: UserPartialResponse;
  /** For a message command: its target. */
  @ApiProperty({ required: false })
  target_message_id?: string;
}

/**
 * A message, with the fields of Discord's message object that bot libraries read (Parley has no
 * TTS: always false).
 */
export class MessageResponse {
  id: string;
  channel_id: string;
  /**
   * 0 = a default message (users, bots and webhooks alike), 19 = a reply, 20 = an application
   * command's response, 23 = a context-menu command's.
   */
  @ApiProperty({ example: 0 })
  type: number;
  content: string;
  @ApiProperty({ type: [EmbedDto] })
  embeds: EmbedDto[];
  author: MessageAuthorResponse;
  /** Set when a webhook posted the message. */
  webhook_id?: string;
  /** When it was posted (ISO 8601); the same as `timestamp`. */
  created_at: string;
  /** When it was posted (ISO 8601), Discord's name. */
  timestamp: string;
  /** When its author last edited it, else null. */
  edited_timestamp: string | null;
  /** Always false. */
  tts: boolean;
  /** Whether it mentions @everyone (or @here) with the author's MENTION_EVERYONE permission. */
  mention_everyone: boolean;
  /**
   * The guild members it mentions (`<@id>`, and the author of the message a reply answers), as
   * they were when it was posted, each with their membership as it is now; only those that
   * `allowed_mentions` allowed.
   */
  @ApiProperty({ type: [MentionResponse] })
  mentions: MentionResponse[];
  /** The guild's roles it mentions (`<@&id>`) that `allowed_mentions` allowed. */
  @ApiProperty({ type: [String] })
  mention_roles: string[];
  /** The author's membership of the guild as it is now (absent for webhooks and former members). */
  @ApiProperty({ required: false, type: () => MessageMemberResponse })
  member?: MessageMemberResponse;
  /** Its files, each with a signed link that works for ATTACHMENT_URL_TTL seconds. */
  @ApiProperty({ type: [AttachmentResponse] })
  attachments: AttachmentResponse[];
  /** A bot's buttons and select menus in action rows, as sent (empty for other messages). */
  @ApiProperty({ type: [ActionRowDto] })
  components: ActionRowDto[];
  /** Whether it is pinned in its channel. */
  pinned: boolean;
  /** Discord's message flags: 64 EPHEMERAL (seen by one user), 128 LOADING (a deferred response). */
  flags: number;
  /** For a reply (type 19): the message it answers. */
  @ApiProperty({ required: false, type: () => MessageReferenceResponse })
  message_reference?: MessageReferenceResponse;
  /** For a reply: the message it answers, null when that one was deleted. */
  @ApiProperty({ required: false, nullable: true, type: () => MessageResponse })
  referenced_message?: MessageResponse | null;
  /**
   * Its reactions in the order their emoji were first added, `me` for the caller; absent when it
   * has none (as on Discord), and in gateway events.
   */
  @ApiProperty({ required: false, type: [ReactionResponse] })
  reactions?: ReactionResponse[];
  /** The application whose interaction posted it (its bot is the author). */
  @ApiProperty({ required: false })
  application_id?: string;
  /** For an interaction's message: the interaction (Discord's `interaction_metadata`). */
  @ApiProperty({ required: false, type: () => MessageInteractionMetadataResponse })
  interaction_metadata?: MessageInteractionMetadataResponse;
  /** For an interaction's message: Discord's older interaction object (id, type, name, user). */
  @ApiProperty({ required: false, type: () => MessageInteractionResponse })
  interaction?: MessageInteractionResponse;
  /** Echoed from the request that created it (POST only). */
  @ApiProperty({ required: false, oneOf: [{ type: 'string' }, { type: 'integer' }] })
  nonce?: string | number;
}

/** A pinned message in Discord's newer pins list. */
export class MessagePinResponse {
  /** When it was pinned (ISO 8601). */
  pinned_at: string;
  message: MessageResponse;
}

/** A page of Discord's newer pins list, newest pin first. */
export class MessagePinsResponse {
  @ApiProperty({ type: [MessagePinResponse] })
  items: MessagePinResponse[];
  /** Whether older pins follow (ask again with `before` the last `pinned_at`). */
  has_more: boolean;
}
