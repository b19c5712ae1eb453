/**
 * Discord Gateway v10 as Parley speaks it (DESIGN.md §4 "Gateway"). Opcodes, close codes, intents
 * and event names are `discord-api-types`' — bot libraries are the client, so a code never means
 * anything else here; what this file adds are Parley's limits and the rules that use them.
 */
import {
  GatewayCloseCodes,
  GatewayDispatchEvents,
  GatewayIntentBits,
  GatewayOpcodes,
} from 'discord-api-types/v10';

export {
  GatewayCloseCodes as CloseCode,
  GatewayDispatchEvents,
  GatewayIntentBits as Intent,
  GatewayOpcodes as Op,
};

/** Discord's close reasons, sent with the close frame. */
export const CLOSE_REASONS: Partial<Record<number, string>> = {
  [GatewayCloseCodes.UnknownError]: 'Unknown error.',
  [GatewayCloseCodes.UnknownOpcode]: 'Unknown opcode.',
  [GatewayCloseCodes.DecodeError]: 'Decode error.',
  [GatewayCloseCodes.NotAuthenticated]: 'Not authenticated.',
  [GatewayCloseCodes.AuthenticationFailed]: 'Authentication failed.',
  [GatewayCloseCodes.AlreadyAuthenticated]: 'Already authenticated.',
  [GatewayCloseCodes.InvalidSeq]: 'Invalid seq.',
  [GatewayCloseCodes.RateLimited]: 'Rate limited.',
  [GatewayCloseCodes.SessionTimedOut]: 'Session timed out.',
  [GatewayCloseCodes.InvalidShard]: 'Invalid shard.',
  [GatewayCloseCodes.ShardingRequired]: 'Sharding required.',
  [GatewayCloseCodes.InvalidAPIVersion]: 'Invalid API version.',
  [GatewayCloseCodes.InvalidIntents]: 'Invalid intent(s).',
  [GatewayCloseCodes.DisallowedIntents]: 'Disallowed intent(s).',
};

/** Closes after which a client may resume (Discord's list); the others end the session. */
export const RESUMABLE_CLOSES = new Set<number>([
  GatewayCloseCodes.UnknownError,
  GatewayCloseCodes.UnknownOpcode,
  GatewayCloseCodes.DecodeError,
  GatewayCloseCodes.NotAuthenticated,
  GatewayCloseCodes.AlreadyAuthenticated,
  GatewayCloseCodes.InvalidSeq,
  GatewayCloseCodes.RateLimited,
  GatewayCloseCodes.SessionTimedOut,
]);

/** Every intent bit Discord defines. */
export const KNOWN_INTENTS: number = Object.values(GatewayIntentBits)
  .filter((v): v is number => typeof v === 'number')
  .reduce((all, bit) => all | bit, 0);

/**
 * Privileged intents and the application flag that allows each — Discord's `GATEWAY_*_LIMITED`
 * flags, which an application's owner may set on Parley (nobody reviews them here).
 */
export const PRIVILEGED_INTENTS: ReadonlyArray<{ intent: number; flag: number }> = [
  { intent: GatewayIntentBits.GuildMembers, flag: 1 << 15 },
  { intent: GatewayIntentBits.MessageContent, flag: 1 << 19 },
  { intent: GatewayIntentBits.GuildPresences, flag: 1 << 13 },
];

/** The privileged intents in `intents` that `applicationFlags` does not allow. */
export function disallowedIntents(intents: number, applicationFlags: number): number {
  let missing = 0;
  for (const { intent, flag } of PRIVILEGED_INTENTS) {
    if (intents & intent && !(applicationFlags & flag)) missing |= intent;
  }
  return missing;
}

const E = GatewayDispatchEvents;
const I = GatewayIntentBits;

/** Which intent an event needs (bots only; user sessions receive everything they may see). */
export const EVENT_INTENT: Partial<Record<string, number>> = {
  [E.GuildUpdate]: I.Guilds,
  [E.GuildDelete]: I.Guilds,
  [E.GuildRoleCreate]: I.Guilds,
  [E.GuildRoleUpdate]: I.Guilds,
  [E.GuildRoleDelete]: I.Guilds,
  [E.ChannelCreate]: I.Guilds,
  [E.ChannelUpdate]: I.Guilds,
  [E.ChannelDelete]: I.Guilds,
  [E.ChannelPinsUpdate]: I.Guilds,
  [E.GuildMemberAdd]: I.GuildMembers,
  [E.GuildMemberUpdate]: I.GuildMembers,
  [E.GuildMemberRemove]: I.GuildMembers,
  [E.GuildBanAdd]: I.GuildModeration,
  [E.GuildBanRemove]: I.GuildModeration,
  [E.WebhooksUpdate]: I.GuildWebhooks,
  [E.MessageCreate]: I.GuildMessages,
  [E.MessageUpdate]: I.GuildMessages,
  [E.MessageDelete]: I.GuildMessages,
  [E.MessageDeleteBulk]: I.GuildMessages,
  [E.TypingStart]: I.GuildMessageTyping,
  [E.PresenceUpdate]: I.GuildPresences,
  [E.MessageReactionAdd]: I.GuildMessageReactions,
  [E.MessageReactionRemove]: I.GuildMessageReactions,
  [E.MessageReactionRemoveAll]: I.GuildMessageReactions,
  [E.MessageReactionRemoveEmoji]: I.GuildMessageReactions,
};

export const SUPPORTED_VERSIONS = new Set(['1', '9', '10']);
export const GATEWAY_VERSION = 10;

/** Frames a client sends are at most this many bytes (4002 beyond). */
export const MAX_CLIENT_FRAME_BYTES = 4096;
/** A client may send this many frames per window (4008 beyond). */
export const CLIENT_FRAMES_PER_WINDOW = 120;
export const CLIENT_FRAME_WINDOW_MS = 60_000;
/** Guilds beyond which a connection needs sharding (4011). */
export const MAX_GUILDS_PER_SESSION = 2500;
/** GUILD_CREATE lists members only up to this many (and only with GUILD_MEMBERS). */
export const DEFAULT_LARGE_THRESHOLD = 50;
export const MIN_LARGE_THRESHOLD = 50;
export const MAX_LARGE_THRESHOLD = 250;

/** The shard a guild belongs to (Discord's formula). */
export function shardOf(guildId: string, shardCount: number): number {
  if (shardCount === 1) return 0;
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

/** A frame as it goes out. */
export interface GatewayFrame {
  op: GatewayOpcodes;
  d: unknown;
  s: number | null;
  t: string | null;
}
