import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DatabaseNotifications } from '../../database/notifications';
import { EVENTS_CHANNEL, EventStore, UNSENT_MARK } from './event-store';
import { EventTransport, type TransportReader } from './event-transport';
import type { LoggedEvent } from './realtime-event';

/** Receives the log's events in order, each once, in batches. */
export type EventListener = (events: LoggedEvent[]) => void;

/** Events read from PostgreSQL per query. */
const READ_BATCH = 1_000;
/** While the transport cannot be read, PostgreSQL is read this often. */
const POLL_MS = 250;
/** With a shared transport working, a head announced by the relay is checked after this. */
const ANNOUNCED_HEAD_GRACE_MS = 1_000;

/**
 * This instance's reader of the event log (ARCHITECTURE.md §7). Events are numbered 1, 2, 3, …
 * by the relay; the reader delivers them to its listeners (the gateway) strictly in that order,
 * each once. They arrive through the transport (in process, or the Redis stream) — possibly
 * repeated or out of order — and whatever the transport missed is read from PostgreSQL, where the
 * numbered log is kept for the retention window: a gap in positions, the transport being
 * unreadable (Redis away: then PostgreSQL is polled), the relay's announcement of a head this
 * instance has not reached. Only events that are no longer kept are lost, and then the gap
 * listeners are told (the gateway ends the sessions that may have missed them: op 9).
 */
@Injectable()
export class EventLog
  implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown, TransportReader
{
  private readonly logger = new Logger('EventLog');
  private readonly listeners = new Set<EventListener>();
  private readonly gapListeners = new Set<() => void>();
  /** Events received ahead of `position`, waiting for the ones before them. */
  private readonly ahead = new Map<number, LoggedEvent>();
  private pos = 0;
  private active = false;
  private transportReading = false;
  private catching: Promise<void> | null = null;
  private catchAgain = false;
  private poller: NodeJS.Timeout | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly adapterHost: HttpAdapterHost,
    private readonly transport: EventTransport,
    private readonly notifications: DatabaseNotifications,
  ) {}

  /** The position of the last event delivered: a session starting now follows from here. */
  get position(): number {
    return this.pos;
  }

  /** True when other instances see what this one's relay sends (Redis). */
  get shared(): boolean {
    return this.transport.shared;
  }

  onModuleInit(): void {
    this.notifications.listen(EVENTS_CHANNEL, {
      onNotification: (head) =>
        head.endsWith(UNSENT_MARK)
          ? this.announced(Number(head.slice(0, -UNSENT_MARK.length)), true)
          : this.announced(Number(head), false),
      onListening: (on) => {
        if (on) this.catchUp();
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    // The operator CLI boots the app without an HTTP server: nobody to deliver to.
    if (!(this.adapterHost.httpAdapter as unknown)) return;
    this.pos = await EventStore.head(this.dataSource);
    this.active = true;
    this.transport.start(this);
  }

  async onApplicationShutdown(): Promise<void> {
    this.active = false;
    if (this.poller) clearInterval(this.poller);
    this.listeners.clear();
    await this.transport.close();
  }

  /** Delivers every event from the current position on. Returns the unsubscribe. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Calls `listener` when events this instance should have delivered are gone (no longer kept
   * anywhere): whoever relied on receiving every event must start over. Returns the unsubscribe.
   */
  onGap(listener: () => void): () => void {
    this.gapListeners.add(listener);
    return () => this.gapListeners.delete(listener);
  }

  /**
   * The events after `after`, in order, read from PostgreSQL — for a gateway session resumed on
   * this instance — or null when some of them are no longer kept.
   */
  async range(after: number): Promise<LoggedEvent[] | null> {
    // The head first: every position up to it was committed before the reads below started, so
    // one of them not found is gone, not late.
    const head = await this.head();
    const out: LoggedEvent[] = [];
    let from = after;
    while (from < head) {
      const rows = await EventStore.read(this.dataSource, from, head, READ_BATCH);
      if (rows.length === 0 || rows[0].position !== from + 1) return null;
      out.push(...rows);
      from = rows[rows.length - 1].position;
    }
    return out;
  }

  /** The log's head in PostgreSQL: the last position the relay handed out. */
  head(): Promise<number> {
    return EventStore.head(this.dataSource);
  }

  /**
   * The head once every event committed by now is numbered: a session that starts there (and
   * reads its snapshot after) is sent no event for a change already in its snapshot.
   */
  committedHead(timeoutMs = 2_000): Promise<number> {
    return EventStore.committedHead(this.dataSource, timeoutMs);
  }

  /**
   * Resolves once every event numbered by now was delivered (or after `timeoutMs`): what was
   * committed before a client resumed reaches it before RESUMED.
   */
  async sync(timeoutMs = 2_000): Promise<void> {
    if (!this.active) return;
    const head = await this.head();
    if (this.pos >= head) return;
    this.catchUp();
    const deadline = Date.now() + timeoutMs;
    while (this.pos < head && this.active && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /**
   * Resolves once every event committed by now was numbered and delivered (or after
   * `timeoutMs`): what a change announced reaches the sessions before a consequence of the same
   * change that travels faster (a revocation's notification closing a session).
   */
  async syncCommitted(timeoutMs = 2_000): Promise<void> {
    if (!this.active) return;
    const deadline = Date.now() + timeoutMs;
    const last = await EventStore.lastWritten(this.dataSource);
    while (Date.now() < deadline && (await EventStore.pendingUpTo(this.dataSource, last))) {
      await new Promise((r) => setTimeout(r, 10));
    }
    await this.sync(Math.max(0, deadline - Date.now()));
  }

  /** Events from the transport or the local relay: delivered in order once their turn comes. */
  offer(events: LoggedEvent[]): void {
    if (!this.active) return;
    for (const e of events) if (e.position > this.pos) this.ahead.set(e.position, e);
    this.drain();
  }

  onEvents(events: LoggedEvent[]): void {
    this.offer(events);
  }

  onReading(reading: boolean): void {
    this.transportReading = reading;
    if (reading) {
      if (this.poller) clearInterval(this.poller);
      this.poller = null;
      // Whatever was committed while it could not be read.
      this.catchUp();
    } else if (!this.poller) {
      this.poller = setInterval(() => this.catchUp(), POLL_MS);
      this.poller.unref();
    }
  }

  /** Delivers what is contiguous with the position; a hole left behind is read from PostgreSQL. */
  private drain(): void {
    if (this.ahead.size === 0) return;
    const batch: LoggedEvent[] = [];
    for (let next = this.ahead.get(this.pos + 1); next; next = this.ahead.get(this.pos + 1)) {
      this.ahead.delete(next.position);
      this.pos = next.position;
      batch.push(next);
    }
    if (batch.length > 0) this.deliver(batch);
    if (this.ahead.size > 0) this.catchUp();
  }

  /** The relay says the log reaches `head` (`unsent`: not through the transport). */
  private announced(head: number, unsent: boolean): void {
    if (!this.active || !(head > this.pos)) return;
    if (!unsent && this.transport.shared && this.transportReading) {
      // On its way through the transport, most likely: look again in a moment.
      setTimeout(() => {
        if (head > this.pos) this.catchUp();
      }, ANNOUNCED_HEAD_GRACE_MS).unref();
      return;
    }
    this.catchUp();
  }

  /** Reads what follows the position from PostgreSQL (one reader at a time). */
  private catchUp(): void {
    if (!this.active) return;
    if (this.catching) {
      this.catchAgain = true;
      return;
    }
    this.catching = this.readMissing()
      .catch((err: Error) => this.logger.warn(`reading the event log failed: ${err.message}`))
      .finally(() => {
        this.catching = null;
        if (this.catchAgain) {
          this.catchAgain = false;
          this.catchUp();
        }
      });
  }

  private async readMissing(): Promise<void> {
    // The head first: every position up to it was committed before the reads below started, so
    // one of them not found is gone, not late.
    const head = await this.head();
    while (this.active && this.pos < head) {
      const from = this.pos;
      const rows = await EventStore.read(this.dataSource, from, head, READ_BATCH);
      if (!this.active) return;
      if (rows.length === 0) return this.lost(head);
      if (rows[0].position > from + 1) this.lost(rows[0].position - 1);
      this.offer(rows);
    }
  }

  /** Events up to `until` are no longer kept: skip past them and tell the gap listeners. */
  private lost(until: number): void {
    // Delivered meanwhile (the transport was faster than this read): nothing is lost.
    if (until <= this.pos) return;
    this.logger.warn(`realtime events ${this.pos + 1}–${until} are no longer kept`);
    this.pos = until;
    for (const key of this.ahead.keys()) if (key <= until) this.ahead.delete(key);
    for (const listener of this.gapListeners) listener();
  }

  private deliver(events: LoggedEvent[]): void {
    for (const listener of this.listeners) {
      try {
        listener(events);
      } catch (err) {
        this.logger.error(`an event listener failed: ${(err as Error).message}`);
      }
    }
  }
}
