import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type BeforeApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import { renameSync } from 'node:fs';
import { Client } from 'pg';
import { AppConfig } from '../../config/app.config';
import { DataSource } from 'typeorm';
import { sessionClientConfig } from '../../database/session-client';
import { EventLog } from './event-log';
import {
  EVENT_RETENTION_MS,
  EVENTS_CHANNEL,
  EventStore,
  UNSENT_MARK,
  RELAY_WAKE_CHANNEL,
  type Queryable,
} from './event-store';
import { DatabaseNotifications } from '../../database/notifications';
import { EventTransport } from './event-transport';

/** The advisory lock whose holder relays (one instance at a time). */
const RELAY_LOCK = 0x7061726c; // "parl"
/** Events numbered per statement. */
const BATCH = 1_000;
/** Whatever wakes it, the leader also looks this often (events of an instance that died). */
const POLL_MS = 200;
/**
 * Under load, passes start at least this far apart: each is a statement and a commit, and one
 * pass numbering what a few milliseconds of commits wrote costs the database far less than a
 * pass per commit (measured: bench/RESULTS.md, 2026-11-27). An idle relay starts at once.
 */
const MIN_PASS_GAP_MS = 5;
/** A standby instance tries to become the leader this often. */
const STANDBY_RETRY_MS = 1_000;
/** The leader announces the log's head this often when it moved (readers that missed a send). */
const HEAD_NOTIFY_MS = 1_000;
const TRIM_EVERY_MS = 10_000;

/**
 * The relay (ARCHITECTURE.md §7): numbers committed events in the outbox and hands them to every
 * instance. One instance relays at a time — the holder of a session advisory lock, taken on a
 * connection of its own, so that the lock and any statement in flight end together if the
 * process dies; the others stand by and take over within a second. Numbering is one statement
 * (EventStore.numberPending) and commits before anything is sent, so an event is delivered once
 * per position whatever fails after: a send that fails (Redis away) or a relay that dies after the
 * commit leaves the events in PostgreSQL, where every reader finds them by position.
 */
@Injectable()
export class EventRelay implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('EventRelay');
  private client: Client | null = null;
  /** `client` as the event store queries it (rows, not pg's result object). */
  private db: Queryable | null = null;
  private leader = false;
  private stopped = true;
  private running: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private paced: NodeJS.Timeout | null = null;
  private lastPassAt = 0;
  private headTimer: NodeJS.Timeout | null = null;
  private lastTrim = 0;
  private lastAnnounced = 0;
  private head = 0;
  private sendFailed = false;
  /** Connections already given up on (their error and end events both arrive). */
  private readonly dead = new WeakSet<Client>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly adapterHost: HttpAdapterHost,
    private readonly transport: EventTransport,
    private readonly log: EventLog,
    private readonly notifications: DatabaseNotifications,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // Woken by instances that share no transport with this one (several on one database
    // without Redis); with Redis they wake it through the transport.
    this.notifications.listen(RELAY_WAKE_CHANNEL, {
      onNotification: () => {
        if (this.leader) this.wake();
      },
      onListening: () => undefined,
    });
  }

  /** Whether this instance relays now (diagnostics, tests). */
  get isLeader(): boolean {
    return this.leader;
  }

  onApplicationBootstrap(): void {
    // The operator CLI boots the app without an HTTP server: it relays nothing.
    if (!(this.adapterHost.httpAdapter as unknown)) return;
    this.stopped = false;
    this.transport.onWake(() => {
      if (this.leader) this.wake();
    });
    void this.connect();
  }

  // Before any module's onApplicationShutdown (the embedded server stops in one): its own
  // connection ends as a close, not as a loss.
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.paced) clearTimeout(this.paced);
    if (this.headTimer) clearInterval(this.headTimer);
    await this.running?.catch(() => undefined);
    await this.release();
  }

  /** Something was committed: number it now (or, on a standby, ask the leader to). */
  wake(): void {
    if (this.stopped) return;
    if (!this.leader) {
      // The leader is another instance: tell it through the transport, or the database (it
      // also polls).
      if (this.transport.shared) this.transport.wake();
      else
        this.dataSource
          .query("SELECT pg_notify($1, '')", [RELAY_WAKE_CHANNEL])
          .catch(() => undefined);
      return;
    }
    if (this.running) {
      this.again = true;
      return;
    }
    const wait = this.lastPassAt + MIN_PASS_GAP_MS - Date.now();
    if (wait > 0) {
      if (!this.paced) {
        this.paced = setTimeout(() => {
          this.paced = null;
          this.wake();
        }, wait);
        this.paced.unref();
      }
      return;
    }
    this.lastPassAt = Date.now();
    this.running = this.relay().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /**
   * Runs every pending relay pass to its end and returns the log's head (tests: everything
   * committed so far is numbered and sent once this resolves on the leader).
   */
  async flush(): Promise<number> {
    while (this.running) await this.running;
    if (this.leader) {
      this.running = this.relay().finally(() => (this.running = null));
      await this.running;
    }
    return this.head;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client(sessionClientConfig(this.dataSource, 'relay'));
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      this.client = client;
      // Every statement of the relay's is prepared once on its connection (they run hundreds
      // of times a second under load; planning the numbering statement each time showed).
      this.db = {
        query: async <T>(text: string, values?: unknown[]) =>
          (await client.query({ name: statementName(text), text, values })).rows as T,
      };
      await this.tryLead();
    } catch (err) {
      this.lost(client, err as Error);
    }
  }

  /** Takes the lock if it is free; otherwise tries again later. */
  private async tryLead(): Promise<void> {
    const client = this.client;
    if (!client || this.stopped) return;
    const [row] = (
      await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [RELAY_LOCK])
    ).rows;
    if (!row?.ok) {
      this.schedule(
        () => void this.tryLead().catch((e: Error) => this.lost(client, e)),
        STANDBY_RETRY_MS,
      );
      return;
    }
    this.leader = true;
    this.head = await EventStore.head(this.db!);
    this.lastAnnounced = this.head;
    this.logger.log('relaying realtime events from this instance');
    this.headTimer = setInterval(() => void this.announceHead(), HEAD_NOTIFY_MS);
    this.headTimer.unref();
    this.wake();
  }

  /** One relay pass: number what is pending, in batches, and send each batch. */
  private async relay(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    const db = this.db;
    try {
      while (client && db && this.leader) {
        const events = await EventStore.numberPending(db, BATCH);
        if (events.length === 0) break;
        this.injectFault();
        this.head = events[events.length - 1].position;
        // This instance's own sessions need no round trip through the transport.
        this.log.offer(events);
        try {
          await this.transport.send(events);
          if (this.sendFailed) this.logger.log('realtime events are sent again');
          this.sendFailed = false;
        } catch (err) {
          if (!this.sendFailed) {
            this.logger.warn(
              `realtime events not sent (${(err as Error).message}): instances read them from PostgreSQL`,
            );
          }
          this.sendFailed = true;
          await this.announceHead();
        }
        if (!this.transport.shared) await this.announceHead();
        if (events.length < BATCH) break;
      }
      if (db && this.leader && Date.now() - this.lastTrim > TRIM_EVERY_MS) {
        this.lastTrim = Date.now();
        await EventStore.trim(db, EVENT_RETENTION_MS);
      }
    } catch (err) {
      if (client) this.lost(client, err as Error);
      return;
    }
    if (this.leader) this.schedule(() => this.wake(), POLL_MS);
  }

  /**
   * The chaos run's fault (PARLEY_FAULT_RELAY_KILL_FILE): the worst moment to die — the batch is
   * numbered and committed, nobody was sent it. The instance that claims the file dies.
   */
  private injectFault(): void {
    const file = this.config.faults.relayKillFile;
    if (!file) return;
    try {
      renameSync(file, `${file}.taken`);
    } catch {
      return;
    }
    process.kill(process.pid, 'SIGKILL');
  }

  /**
   * Tells every instance where the log's head is (NOTIFY): a reader behind it reads the rest from
   * PostgreSQL — the way events reach other instances without Redis (or from an instance
   * configured without it), and the safety net with it.
   */
  private async announceHead(): Promise<void> {
    const client = this.client;
    if (!client || !this.leader || this.head === this.lastAnnounced) return;
    const head = this.head;
    // Marked when the transport did not carry the events (none shared, or a send failed): the
    // readers then read them from PostgreSQL at once instead of waiting for the transport.
    const unsent = this.sendFailed || !this.transport.shared;
    try {
      await client.query('SELECT pg_notify($1, $2)', [
        EVENTS_CHANNEL,
        unsent ? `${head}${UNSENT_MARK}` : String(head),
      ]);
      this.lastAnnounced = head;
    } catch {
      // The connection's own error handler takes it from here.
    }
  }

  private schedule(run: () => void, ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(run, ms);
    this.timer.unref();
  }

  /** The connection is gone: leadership with it (PostgreSQL released the lock). Reconnect. */
  private lost(client: Client, err?: Error): void {
    if (this.dead.has(client)) return;
    this.dead.add(client);
    if (this.client !== client && this.client !== null) return;
    const wasLeader = this.leader;
    this.client = null;
    this.db = null;
    this.leader = false;
    if (this.headTimer) clearInterval(this.headTimer);
    this.headTimer = null;
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    if (this.stopped) return;
    if (wasLeader || err) {
      this.logger.warn(
        `event relay connection lost${err ? ` (${err.message})` : ''}; reconnecting`,
      );
    }
    this.schedule(() => void this.connect(), STANDBY_RETRY_MS);
  }

  private async release(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.db = null;
    this.leader = false;
    if (!client) return;
    client.removeAllListeners('end');
    await client.end().catch(() => undefined);
  }
}

/** Names of the relay's prepared statements, one per text. */
const STATEMENT_NAMES = new Map<string, string>();

function statementName(text: string): string {
  let name = STATEMENT_NAMES.get(text);
  if (!name) STATEMENT_NAMES.set(text, (name = `parley_relay_${STATEMENT_NAMES.size + 1}`));
  return name;
}
