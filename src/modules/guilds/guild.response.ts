import { ApiProperty } from '@nestjs/swagger';
import { UserPartialResponse } from '../users/user.response';
import { EmbedDto } from './dto/embed.dto';

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

/**
 * A message, with the fields of Discord's message object that bot libraries read (Parley has no
 * attachments, components, pins, role mentions or TTS: those are always empty, false or 0).
 */
export class MessageResponse {
  id: string;
  channel_id: string;
  /** 0 = a default message (users, bots and webhooks alike), 19 = a reply. */
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
  /** The guild members it mentions (`<@id>`), as they were when it was posted. */
  @ApiProperty({ type: [UserPartialResponse] })
  mentions: UserPartialResponse[];
  /** Always empty. */
  @ApiProperty({ type: [String] })
  mention_roles: string[];
  /** Always empty. */
  @ApiProperty({ type: 'array', items: { type: 'object' } })
  attachments: Array<Record<string, never>>;
  /** Always empty. */
  @ApiProperty({ type: 'array', items: { type: 'object' } })
  components: Array<Record<string, never>>;
  /** Always false. */
  pinned: boolean;
  /** Always 0. */
  flags: number;
  /** For a reply (type 19): the message it answers. */
  @ApiProperty({ required: false, type: () => MessageReferenceResponse })
  message_reference?: MessageReferenceResponse;
  /** For a reply: the message it answers, null when that one was deleted. */
  @ApiProperty({ required: false, nullable: true, type: () => MessageResponse })
  referenced_message?: MessageResponse | null;
  /** Echoed from the request that created it (POST only). */
  @ApiProperty({ required: false, oneOf: [{ type: 'string' }, { type: 'integer' }] })
  nonce?: string | number;
}
