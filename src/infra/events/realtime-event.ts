import { GatewayDispatchEvents } from 'discord-api-types/v10';

export { GatewayDispatchEvents as EventName };

/**
 * Dispatches of Discord's user gateway that bots never receive: what became of an interaction
 * the user invoked (and the modal or autocomplete choices its application answered with).
 */
export enum UserDispatchEvents {
  InteractionSuccess = 'INTERACTION_SUCCESS',
  InteractionFailure = 'INTERACTION_FAILURE',
  InteractionModalCreate = 'INTERACTION_MODAL_CREATE',
  ApplicationCommandAutocompleteResponse = 'APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE',
}

/** Any dispatch's name. */
export type DispatchName = GatewayDispatchEvents | UserDispatchEvents;

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
  t: DispatchName;
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
  t: DispatchName;
  guildId: string | null;
  channelId: string | null;
  userId: string | null;
  authorId: string | null;
  mentionIds: string[] | null;
  /** `d`, as JSON text (a message's is read without its content by `contentFree`). */
  data: string;
}

/** Events whose payload is a message: their content is blanked for bots without MESSAGE_CONTENT. */
const MESSAGE_EVENTS = new Set<string>([
  GatewayDispatchEvents.MessageCreate,
  GatewayDispatchEvents.MessageUpdate,
]);

/** Whether the event's payload is a message (its content is for some recipients only). */
export function carriesContent(event: Pick<LoggedEvent, 't'>): boolean {
  return MESSAGE_EVENTS.has(event.t);
}

/** A message as a bot without MESSAGE_CONTENT sees it (Discord's rule): no content. */
export function redactMessage<T extends object>(message: T): T {
  const out = { ...message, content: '', embeds: [], attachments: [], components: [] };
  // A reply carries the message it answers: without its content too.
  const referenced = (message as { referenced_message?: unknown }).referenced_message;
  if (referenced && typeof referenced === 'object') {
    (out as { referenced_message?: object }).referenced_message = redactMessage(referenced);
  }
  return out;
}

/** Content-free payloads, made once per event on the instance that needs one. */
const CONTENT_FREE = new WeakMap<LoggedEvent, string>();

/**
 * A message event's payload without its content, as JSON text: derived from the payload where it
 * is needed rather than stored beside it (the outbox row is written by every message's request;
 * this is read only for bots without MESSAGE_CONTENT), and then shared by every such session.
 */
export function contentFree(event: LoggedEvent): string {
  let text = CONTENT_FREE.get(event);
  if (text === undefined) {
    text = JSON.stringify(redactMessage(JSON.parse(event.data) as object));
    CONTENT_FREE.set(event, text);
  }
  return text;
}
