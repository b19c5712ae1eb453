import type { UserEntity } from '../users/user.entity';
import type { ApplicationEntity } from './application.entity';
import type {
  ApplicationBotResponse,
  ApplicationPublicResponse,
  ApplicationResponse,
  ApplicationsMeResponse,
  BotProfileResponse,
  DiscordApplicationResponse,
} from './application.response';
import { toUserPartial } from '../users/user.mapper';
import { OAUTH2_SCOPES } from './scopes';

export function toApplicationBot(
  app: ApplicationEntity,
  bot: UserEntity,
  token?: string,
): ApplicationBotResponse {
  const out: ApplicationBotResponse = {
    id: bot.id,
    username: bot.username,
    discriminator: bot.discriminator,
    avatar: bot.avatar,
    banner: bot.banner,
    bio: bot.bio,
    flags: app.botFlags,
    mfa_enabled: bot.mfaEnabled,
    authenticator_types: bot.authenticatorTypes,
  };
  if (token !== undefined) out.token = token;
  return out;
}

export function toApplication(
  app: ApplicationEntity,
  bot: UserEntity,
  secrets: { clientSecret?: string; botToken?: string } = {},
): ApplicationResponse {
  const out: ApplicationResponse = {
    id: app.id,
    name: app.name,
    bot_public: app.botPublic,
    bot_require_code_grant: app.botRequireCodeGrant,
    redirect_uris: app.redirectUris,
    interactions_endpoint_url: app.interactionsEndpointUrl,
    bot: toApplicationBot(app, bot, secrets.botToken),
  };
  if (secrets.clientSecret !== undefined) out.client_secret = secrets.clientSecret;
  return out;
}

export function toApplicationPublic(
  app: ApplicationEntity,
  bot: UserEntity,
): ApplicationPublicResponse {
  return {
    id: app.id,
    name: app.name,
    description: app.description,
    icon: app.icon,
    bot_public: app.botPublic,
    redirect_uris: app.redirectUris,
    scopes: [...OAUTH2_SCOPES],
    bot: toApplicationBot(app, bot),
  };
}

export function toApplicationsMe(app: ApplicationEntity, bot: UserEntity): ApplicationsMeResponse {
  return {
    id: app.id,
    name: app.name,
    description: app.description,
    icon: app.icon,
    bot_public: app.botPublic,
    bot_require_code_grant: app.botRequireCodeGrant,
    flags: app.flags,
    interactions_endpoint_url: app.interactionsEndpointUrl,
    bot: toApplicationBot(app, bot),
  };
}

export function toBotProfile(bot: UserEntity): BotProfileResponse {
  return {
    id: bot.id,
    username: bot.username,
    discriminator: bot.discriminator,
    avatar: bot.avatar,
    banner: bot.banner,
    bio: bot.bio,
  };
}

/** Discord's application object (a bot reading its own application). */
export function toDiscordApplication(
  app: ApplicationEntity,
  parts: { owner: UserEntity; bot: UserEntity; verifyKey: string },
): DiscordApplicationResponse {
  return {
    id: app.id,
    name: app.name,
    icon: app.icon,
    description: app.description ?? '',
    summary: '',
    bot_public: app.botPublic,
    bot_require_code_grant: app.botRequireCodeGrant,
    owner: toUserPartial(parts.owner),
    bot: toUserPartial(parts.bot),
    verify_key: parts.verifyKey,
    flags: app.flags,
    rpc_origins: [],
    team: null,
    interactions_endpoint_url: app.interactionsEndpointUrl,
    redirect_uris: app.redirectUris,
  };
}
