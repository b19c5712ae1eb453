import { ApiProperty } from '@nestjs/swagger';
import { UserPartialResponse } from '../users/user.response';

/** The bot user of an application. */
export class ApplicationBotResponse {
  @ApiProperty({ example: '1234567890123456789' })
  id: string;
  username: string;
  discriminator: string;
  /** Avatar hash. */
  avatar?: string | null;
  /** Banner hash. */
  banner?: string | null;
  bio: string | null;
  /** BotFlags: FRIENDLY_BOT 16, FRIENDLY_BOT_MANUAL_APPROVAL 32. */
  flags: number;
  mfa_enabled?: boolean;
  /** AuthenticatorType values. */
  @ApiProperty({ type: [Number], required: false })
  authenticator_types?: number[];
  /** Bot token `<application_id>.<secret>`: only in the create and reset-token responses. */
  token?: string;
}

export class ApplicationResponse {
  @ApiProperty({ example: '1234567890123456789' })
  id: string;
  /** 1-100 characters. */
  name: string;
  /** Anyone may invite the bot (otherwise only the owner). */
  bot_public: boolean;
  /** Adding the bot requires the full code grant (a redirect_uri). */
  bot_require_code_grant: boolean;
  @ApiProperty({ type: [String], example: ['https://example.com/callback'] })
  redirect_uris: string[];
  /** Where interactions are POSTed; null: they arrive on the bot's gateway session. */
  @ApiProperty({ type: String, nullable: true, example: null })
  interactions_endpoint_url: string | null;
  /** Only in the create and client-secret reset responses. */
  client_secret?: string;
  bot?: ApplicationBotResponse;
}

export class ApplicationPublicResponse {
  @ApiProperty({ example: '1234567890123456789' })
  id: string;
  name: string;
  description: string | null;
  /** Icon hash. */
  icon: string | null;
  bot_public: boolean;
  @ApiProperty({ type: [String] })
  redirect_uris: string[];
  /** The OAuth2 scopes an application may request. */
  @ApiProperty({
    type: [String],
    example: ['identify', 'email', 'guilds', 'bot', 'openid', 'profile'],
  })
  scopes: string[];
  @ApiProperty({ type: ApplicationBotResponse, nullable: true })
  bot: ApplicationBotResponse | null;
}

/** The application of the calling bot (`GET /applications/@me`). */
export class ApplicationsMeResponse {
  @ApiProperty({ example: '1234567890123456789' })
  id: string;
  name: string;
  description: string | null;
  icon: string | null;
  bot_public: boolean;
  bot_require_code_grant: boolean;
  /** ApplicationFlags bitfield. */
  flags: number;
  /** Where interactions are POSTed; null: they arrive on the bot's gateway session. */
  @ApiProperty({ type: String, nullable: true, example: null })
  interactions_endpoint_url: string | null;
  bot?: ApplicationBotResponse;
}

export class BotProfileResponse {
  @ApiProperty({ example: '1234567890123456789' })
  id: string;
  username: string;
  discriminator: string;
  avatar: string | null;
  banner: string | null;
  bio: string | null;
}

export class BotTokenResetResponse {
  /** The new bot token `<application_id>.<secret>`; earlier tokens stop working at once. */
  token: string;
  bot: ApplicationBotResponse;
}

/**
 * Discord's application object, as a bot reads its own (`GET /oauth2/applications/@me` with a
 * bot token; discord.py reads it at login).
 */
export class DiscordApplicationResponse {
  @ApiProperty({ example: '1234567890123456789' })
  id: string;
  name: string;
  /** Icon hash. */
  icon: string | null;
  /** Empty when none was set (Discord's object always has a string). */
  description: string;
  /** Deprecated by Discord; always empty. */
  summary: string;
  bot_public: boolean;
  bot_require_code_grant: boolean;
  /** The application's owner. */
  owner: UserPartialResponse;
  /** The application's bot user. */
  bot: UserPartialResponse;
  /** The application's Ed25519 public key, hex: it verifies interactions Parley signs. */
  @ApiProperty({ example: 'a3c1f0e9b7d24c6e8f5a1b2c3d4e5f60718293a4b5c6d7e8f9012a3b4c5d6e7f' })
  verify_key: string;
  /** ApplicationFlags bitfield. */
  flags: number;
  /** Always empty: Parley has no RPC. */
  @ApiProperty({ type: [String], example: [] })
  rpc_origins: string[];
  /** Always null: applications belong to one user. */
  @ApiProperty({ type: Object, nullable: true, example: null })
  team: null;
  /** Where interactions are POSTed; null: they arrive on the gateway. */
  @ApiProperty({ type: String, nullable: true, example: null })
  interactions_endpoint_url: string | null;
  @ApiProperty({ type: [String], example: ['https://example.com/callback'] })
  redirect_uris: string[];
}
