import type { LoggedEvent } from './realtime-event';

/** What a transport reports to the instance's log reader. */
export interface TransportReader {
  /** Events as the transport carries them: in log order per sender, possibly repeated. */
  onEvents(events: LoggedEvent[]): void;
  /** Whether the transport is being read; while false, the reader polls PostgreSQL instead. */
  onReading(reading: boolean): void;
}

/**
 * How numbered events travel from the relay to every instance's log reader: in this process
 * (no REDIS_URL), or a Redis stream that every instance reads. It is only a fast path: the
 * numbered log stays in PostgreSQL for the retention window, and a reader that finds a gap in
 * positions, or cannot read the transport, reads it from there (EventLog). So a send that fails
 * loses nothing.
 */
export abstract class EventTransport {
  /** True when other instances receive what this one sends (Redis). */
  abstract readonly shared: boolean;

  /** Hands numbered events to every instance's reader. */
  abstract send(events: LoggedEvent[]): Promise<void>;

  /** Starts delivering to `reader`. */
  abstract start(reader: TransportReader): void;

  /**
   * Hands an ephemeral event (typing, presence: never stored, not numbered, not replayed) to every
   * instance's listener, best effort.
   */
  abstract sendEphemeral(event: LoggedEvent): void;

  /** Calls `listener` with every instance's ephemeral events (see `sendEphemeral`). */
  abstract onEphemeral(listener: (event: LoggedEvent) => void): void;

  /** Asks the relay, wherever it runs, to number what was just committed. */
  abstract wake(): void;

  /** Calls `listener` when another instance asks the relay to run (see `wake`). */
  abstract onWake(listener: () => void): void;

  abstract close(): Promise<void>;
}
