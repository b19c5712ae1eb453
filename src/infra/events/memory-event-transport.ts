import { EventTransport, type TransportReader } from './event-transport';
import type { LoggedEvent } from './realtime-event';

/**
 * The transport of a single instance (no REDIS_URL): the relay's events go to this process's
 * reader on the next tick (never inside the relay's stack). Other instances on the same database,
 * if any, read the log from PostgreSQL when the relay's notification tells them it moved.
 */
export class MemoryEventTransport extends EventTransport {
  readonly shared = false;
  private reader: TransportReader | null = null;
  private readonly ephemeral = new Set<(event: LoggedEvent) => void>();

  send(events: LoggedEvent[]): Promise<void> {
    if (events.length > 0 && this.reader) {
      const reader = this.reader;
      setImmediate(() => reader.onEvents(events));
    }
    return Promise.resolve();
  }

  start(reader: TransportReader): void {
    this.reader = reader;
    reader.onReading(true);
  }

  sendEphemeral(event: LoggedEvent): void {
    for (const listener of this.ephemeral) setImmediate(() => listener(event));
  }

  onEphemeral(listener: (event: LoggedEvent) => void): void {
    this.ephemeral.add(listener);
  }

  /** Nobody else to wake: the relay of this process runs when its own writers commit. */
  wake(): void {}

  onWake(): void {}

  close(): Promise<void> {
    this.reader = null;
    this.ephemeral.clear();
    return Promise.resolve();
  }
}
