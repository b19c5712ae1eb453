import type { LoggedEvent, RealtimeEvent } from './realtime-event';

/** Receives the events appended by any instance, in log order, in batches. */
export type EventListener = (events: LoggedEvent[]) => void;

/**
 * The ordered log of committed realtime events that every instance reads: in process when this
 * instance is alone (no REDIS_URL), a Redis stream shared by all instances otherwise
 * (redis-event-log.ts). Appending never fails the write that made the events — the change is
 * committed already; an event that cannot be appended is logged and lost, and gateway clients
 * that missed it learn so on resume (invalid session) rather than getting a gap unannounced.
 */
export abstract class EventLog {
  /** True when other instances see what this one appends (Redis). */
  abstract readonly shared: boolean;

  /**
   * The id of the last event delivered to subscribers — or, before the first, the log's end when
   * reading began ("0-0" until then). A session starting now follows the log from here.
   */
  abstract readonly position: string;

  /** Appends, in order. Resolves once the events are in the log. */
  abstract append(events: RealtimeEvent[]): Promise<void>;

  /** Delivers every event appended from now on, by any instance. Returns the unsubscribe. */
  abstract subscribe(listener: EventListener): () => void;

  /**
   * The events after `afterId` (exclusive), in order — for a gateway session resumed on another
   * instance — or null when some of them are no longer kept (or this log cannot replay).
   */
  abstract range(afterId: string): Promise<LoggedEvent[] | null>;

  abstract close(): Promise<void>;

  private readonly gapListeners = new Set<() => void>();

  /**
   * Calls `listener` whenever events may have been lost: an append of this instance failed, or
   * this instance could not read the log for a while (Redis away or restarted — another
   * instance's appends may have failed meanwhile). Returns the unsubscribe.
   */
  onGap(listener: () => void): () => void {
    this.gapListeners.add(listener);
    return () => this.gapListeners.delete(listener);
  }

  /** Tells the gap listeners (see onGap). */
  protected gap(): void {
    for (const listener of this.gapListeners) listener();
  }

  /** An append failed: its events are lost (the write they follow is committed). */
  appendFailed(): void {
    this.gap();
  }
}
