/**
 * Discord Gateway v10 as Parley speaks it (DESIGN.md §4 "Gateway"): opcodes, close codes, intents
 * and limits, with Discord's numbers and meanings — bot libraries are the client, so a code never
 * means anything else here.
 */

export const Op = {
  Dispatch: 0,
  Heartbeat: 1,
  Identify: 2,
  PresenceUpdate: 3,
  VoiceStateUpdate: 4,
  Resume: 6,
  Reconnect: 7,
  RequestGuildMembers: 8,
  InvalidSession: 9,
  Hello: 10,
  HeartbeatAck: 11,
} as const;
export type Op = (typeof Op)[keyof typeof Op];

export const CloseCode = {
  UnknownError: 4000,
  UnknownOpcode: 4001,
  DecodeError: 4002,
  NotAuthenticated: 4003,
  AuthenticationFailed: 4004,
  AlreadyAuthenticated: 4005,
  InvalidSeq: 4007,
  RateLimited: 4008,
  SessionTimedOut: 4009,
  InvalidShard: 4010,
  ShardingRequired: 4011,
  InvalidApiVersion: 4012,
  InvalidIntents: 4013,
  DisallowedIntents: 4014,
} as const;

export const CLOSE_REASONS: Record<number, string> = {
  4000: 'Unknown error.',
  4001: 'Unknown opcode.',
  4002: 'Decode error.',
  4003: 'Not authenticated.',
  4004: 'Authentication failed.',
  4005: 'Already authenticated.',
  4007: 'Invalid seq.',
  4008: 'Rate limited.',
  4009: 'Session timed out.',
  4010: 'Invalid shard.',
  4011: 'Sharding required.',
  4012: 'Invalid API version.',
  4013: 'Invalid intent(s).',
  4014: 'Disallowed intent(s).',
};

/** Closes after which a client may resume (Discord's list); the others end the session. */
export const RESUMABLE_CLOSES = new Set<number>([4000, 4001, 4002, 4003, 4005, 4007, 4008, 4009]);

export const Intents = {
  GUILDS: 1 << 0,
  GUILD_MEMBERS: 1 << 1,
  GUILD_MESSAGES: 1 << 9,
  MESSAGE_CONTENT: 1 << 15,
} as const;

/** Every intent bit Discord defines (bits 0–25, without the unused 22 and 23). */
export const KNOWN_INTENTS = ((1 << 26) - 1) & ~((1 << 22) | (1 << 23));

/** Privileged intents and the application flag (Discord's `GATEWAY_*_LIMITED`) that allows each. */
export const PRIVILEGED_INTENTS: Array<{ intent: number; flag: number }> = [
  { intent: Intents.GUILD_MEMBERS, flag: 1 << 15 },
  { intent: Intents.MESSAGE_CONTENT, flag: 1 << 19 },
  // GUILD_PRESENCES: Parley has no presences; its flag can never be set.
  { intent: 1 << 8, flag: 1 << 13 },
];

/** The privileged intents in `intents` that `applicationFlags` does not allow. */
export function disallowedIntents(intents: number, applicationFlags: number): number {
  let missing = 0;
  for (const { intent, flag } of PRIVILEGED_INTENTS) {
    if (intents & intent && !(applicationFlags & flag)) missing |= intent;
  }
  return missing;
}

/** Which intent an event needs (bots only; user sessions receive everything they may see). */
export const EVENT_INTENT: Record<string, number> = {
  GUILD_UPDATE: Intents.GUILDS,
  GUILD_DELETE: Intents.GUILDS,
  CHANNEL_CREATE: Intents.GUILDS,
  CHANNEL_UPDATE: Intents.GUILDS,
  CHANNEL_DELETE: Intents.GUILDS,
  GUILD_MEMBER_ADD: Intents.GUILD_MEMBERS,
  GUILD_MEMBER_UPDATE: Intents.GUILD_MEMBERS,
  GUILD_MEMBER_REMOVE: Intents.GUILD_MEMBERS,
  MESSAGE_CREATE: Intents.GUILD_MESSAGES,
  MESSAGE_UPDATE: Intents.GUILD_MESSAGES,
  MESSAGE_DELETE: Intents.GUILD_MESSAGES,
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
export const MAX_LARGE_THRESHOLD = 250;

/** The shard a guild belongs to (Discord's formula). */
export function shardOf(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

export interface GatewayFrame {
  op: number;
  d: unknown;
  s: number | null;
  t: string | null;
}
