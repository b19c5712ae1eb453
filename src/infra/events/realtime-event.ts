/**
 * A change that clients may see in real time (the gateway's dispatch events, Discord's names):
 * `t` is the event name and `d` its payload, rendered once by the aggregate that made the change.
 * `guildId` is whom it concerns (its members, further filtered by channel visibility where
 * `channelId` is set); events are published only after the transaction that made them commits.
 */
export interface RealtimeEvent {
  t: RealtimeEventName;
  d: Record<string, unknown>;
  guildId: string;
  /** Set for channel and message events: recipients need VIEW_CHANNEL on it. */
  channelId?: string;
  /** Set for membership changes: the member whose access to the guild changed. */
  userId?: string;
}

export type RealtimeEventName =
  | 'GUILD_UPDATE'
  | 'GUILD_DELETE'
  | 'CHANNEL_CREATE'
  | 'CHANNEL_UPDATE'
  | 'CHANNEL_DELETE'
  | 'GUILD_MEMBER_ADD'
  | 'GUILD_MEMBER_UPDATE'
  | 'GUILD_MEMBER_REMOVE'
  | 'MESSAGE_CREATE'
  | 'MESSAGE_UPDATE'
  | 'MESSAGE_DELETE';

/** An event as the log holds it: with its position, ordered across every instance. */
export interface LoggedEvent extends RealtimeEvent {
  /** Position in the log: Redis stream ids ("<ms>-<n>"), or the same shape in process. */
  id: string;
}

/**
 * Orders two log ids ("<ms>-<n>"). Both parts stay below 2^53 (milliseconds since 1970, and a
 * counter within one), so they compare as numbers; this runs once per event per session.
 */
export function compareLogIds(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a.indexOf('-');
  const ib = b.indexOf('-');
  const ma = Number(a.slice(0, ia));
  const mb = Number(b.slice(0, ib));
  if (ma !== mb) return ma < mb ? -1 : 1;
  const na = Number(a.slice(ia + 1));
  const nb = Number(b.slice(ib + 1));
  return na === nb ? 0 : na < nb ? -1 : 1;
}
