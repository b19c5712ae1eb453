import { ApiProperty, PartialType, PickType } from '@nestjs/swagger';
import {
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { ReauthDto } from '../../auth/mfa/dto/reauth.dto';
import { IsVisibleText } from '../../../common/text/visible-text';

export class ApplicationCreateDto {
  /** 1-100 characters. */
  @IsString()
  @Length(1, 100)
  @IsVisibleText()
  name: string;

  @IsOptional()
  @IsBoolean()
  bot_public?: boolean;

  @IsOptional()
  @IsBoolean()
  bot_require_code_grant?: boolean;

  /**
   * At most 10 absolute URIs without fragment; https, or http only for localhost, 127.0.0.1
   * and [::1]. Validated element by element (errors at `redirect_uris.N`).
   */
  @IsOptional()
  @ApiProperty({ type: [String], nullable: true, required: false, maxItems: 10 })
  redirect_uris?: string[] | null;
}

/**
 * Every field of the create request, all optional; `redirect_uris` replaces the list (null clears
 * it). `flags` turns the gateway's privileged intents on or off for the bot.
 */
export class ApplicationUpdateDto extends PartialType(ApplicationCreateDto) {
  /**
   * ApplicationFlags. The owner may set only GATEWAY_PRESENCE_LIMITED (1 << 13: the bot may ask
   * for the GUILD_PRESENCES intent), GATEWAY_GUILD_MEMBERS_LIMITED (1 << 15: the GUILD_MEMBERS
   * intent) and GATEWAY_MESSAGE_CONTENT_LIMITED (1 << 19: the MESSAGE_CONTENT intent); any other
   * bit is refused.
   */
  @ApiProperty({ required: false, example: 1 << 19 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(2 ** 31 - 1)
  flags?: number;

  /**
   * Where interactions are POSTed, signed with the application's key (`verify_key`). Setting it
   * verifies it as Discord does: a signed PING (`{"type": 1}`) must be answered 200
   * `{"type": 1}` and one with an invalid signature refused with 401, within 3 s each, without
   * redirects; the host must resolve to public addresses (unless the instance sets
   * OUTBOUND_ALLOW_PRIVATE=true). null or empty clears it: interactions then arrive on the bot's
   * gateway session.
   */
  @ApiProperty({
    type: String,
    nullable: true,
    required: false,
    maxLength: 2048,
    example: 'https://bot.example.com/interactions',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  interactions_endpoint_url?: string | null;
}

/**
 * Discord's "Edit Current Application" (a bot token): the description, the gateway intent
 * flags the owner may set, and the interactions endpoint URL, as in the owner's update.
 */
export class CurrentApplicationUpdateDto extends PickType(ApplicationUpdateDto, [
  'flags',
  'interactions_endpoint_url',
] as const) {
  /** 0-400 characters; empty clears it. */
  @ApiProperty({ type: String, nullable: true, required: false, maxLength: 400 })
  @IsOptional()
  @IsString()
  @MaxLength(400)
  description?: string | null;
}

/**
 * The owner's re-authentication: `password`, or `mfa_method` + `mfa_code`; none needed within
 * 5 minutes of logging in (or of another re-authentication) on this session.
 */
export class ClientSecretResetDto extends ReauthDto {}

/** The owner's re-authentication for a new bot token (as ClientSecretResetDto). */
export class BotTokenResetDto extends ReauthDto {}

/** The owner's re-authentication for deleting the application (as ClientSecretResetDto). */
export class ApplicationDeleteDto extends ReauthDto {}
