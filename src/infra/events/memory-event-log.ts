import { EventLog, type EventListener } from './event-log';
import type { LoggedEvent, RealtimeEvent } from './realtime-event';

/**
 * The log of a single instance: events go to this process's listeners, in order, on the next
 * tick (never inside the publishing request's stack).
 */
export class MemoryEventLog extends EventLog {
  readonly shared = false;
  position = '0-0';
  private readonly listeners = new Set<EventListener>();
  private lastMs = 0;
  private seq = 0;

  append(events: RealtimeEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    const logged = events.map((e) => ({ ...e, id: this.nextId() }));
    setImmediate(() => this.deliver(logged));
    return Promise.resolve();
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Nothing to replay from: sessions of a single instance resume from its memory. */
  range(): Promise<LoggedEvent[] | null> {
    return Promise.resolve(null);
  }

  close(): Promise<void> {
    this.listeners.clear();
    return Promise.resolve();
  }

  private deliver(events: LoggedEvent[]): void {
    this.position = events[events.length - 1].id;
    for (const listener of this.listeners) listener(events);
  }

  /** Ids shaped like Redis stream ids: milliseconds, then a counter within the millisecond. */
  private nextId(): string {
    const now = Date.now();
    if (now > this.lastMs) {
      this.lastMs = now;
      this.seq = 0;
    } else this.seq += 1;
    return `${this.lastMs}-${this.seq}`;
  }
}
