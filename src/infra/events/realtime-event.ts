import { GatewayDispatchEvents } from 'discord-api-types/v10';

export { GatewayDispatchEvents as EventName };

/**
 * A change that clients may see in real time (a gateway dispatch: `t` is the event's name, `d`
 * its payload in Discord's shape). Written by the aggregate that made the change, in the
 * transaction that made it (RealtimeEvents.publish); delivered after that transaction commits.
 *
 * Who receives it:
 * - `guildId` set: the guild's members (their sessions that follow the guild), further filtered
 *   by VIEW_CHANNEL where `channelId` is set;
 * - `guildId` unset: a user-scoped event, for the sessions of `userId` alone (USER_UPDATE).
 * `userId` on a guild event names the member whose membership changed (the gateway turns a
 * member's own GUILD_MEMBER_ADD/REMOVE into GUILD_CREATE/GUILD_DELETE for them).
 */
export interface RealtimeEvent {
  t: GatewayDispatchEvents;
  d: object;
  guildId?: string;
  channelId?: string;
  userId?: string;
  /**
   * For message events: who wrote it and whom it mentions — a bot without MESSAGE_CONTENT still
   * reads the content of its own messages and of those that mention it.
   */
  authorId?: string;
  mentionIds?: string[];
}

/**
 * An event as every instance reads it from the log: numbered (`position`, gap-free across every
 * instance), with its payload as JSON text — serialised once by the writer and sent as it is.
 */
export interface LoggedEvent {
  /** Place in the log: 1, 2, 3, … with no gaps. */
  position: number;
  /** The event's stable id (the outbox row's). */
  id: string;
  t: GatewayDispatchEvents;
  guildId: string | null;
  channelId: string | null;
  userId: string | null;
  authorId: string | null;
  mentionIds: string[] | null;
  /** `d`, as JSON text. */
  data: string;
  /** `d` without message content (message events only), as JSON text. */
  redacted: string | null;
}

/** Events whose payload is a message: their content is blanked for bots without MESSAGE_CONTENT. */
const MESSAGE_EVENTS = new Set<string>([
  GatewayDispatchEvents.MessageCreate,
  GatewayDispatchEvents.MessageUpdate,
]);

/** A message as a bot without MESSAGE_CONTENT sees it (Discord's rule): no content. */
export function redactMessage<T extends object>(message: T): T {
  return { ...message, content: '', embeds: [], attachments: [], components: [] };
}

/** The JSON texts an event is stored with: its payload, and the payload without content. */
export function serialise(event: RealtimeEvent): { data: string; redacted: string | null } {
  const data = JSON.stringify(event.d);
  if (!MESSAGE_EVENTS.has(event.t)) return { data, redacted: null };
  return { data, redacted: JSON.stringify(redactMessage(event.d)) };
}
