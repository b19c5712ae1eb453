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

/** A message author: a user, or for webhook messages the webhook dressed as a bot user. */
export class MessageAuthorResponse extends UserPartialResponse {}

export class MessageResponse {
  id: string;
  channel_id: string;
  content: string;
  @ApiProperty({ type: [EmbedDto] })
  embeds: EmbedDto[];
  author: MessageAuthorResponse;
  /** Set when a webhook posted the message. */
  webhook_id?: string;
  created_at: string;
}
