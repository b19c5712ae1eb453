import {
  Injectable,
  Logger,
  OnApplicationBootstrap,
  BeforeApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { sessionClientConfig } from './session-client';

export interface NotificationListener {
  /** A notification on the channel (delivered after the notifying transaction committed). */
  onNotification(payload: string): void;
  /**
   * Whether notifications are being received. While false, anything that relies on them (an
   * in-process cache) must not serve from memory: an invalidation could be missed.
   */
  onListening(listening: boolean): void;
}

/** What `invalidateOnChange` drives: an in-process cache whose entries carry change tags. */
export interface ChangeTaggedCache {
  invalidate(tag: string): void;
  setEnabled(enabled: boolean): void;
}

const MAX_BACKOFF_MS = 5_000;

/**
 * Where the database announces changes to credentials and users (the CredentialInvalidation
 * migration's triggers): `s:<session id>`, `b:<oauth2 token id>`, `a:<application id>`, `u:<user id>`.
 */
export const CHANGES_CHANNEL = 'parley_credentials';

/**
 * PostgreSQL LISTEN/NOTIFY on the application database: one dedicated connection per process,
 * reconnected with backoff. Works on any PostgreSQL server, the embedded one included, so
 * every instance on one database hears every other instance's invalidations.
 */
@Injectable()
export class DatabaseNotifications implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DatabaseNotifications.name);
  private readonly listeners = new Map<string, NotificationListener[]>();
  private client: Client | null = null;
  private stopped = false;
  private backoffMs = 100;
  private retry: NodeJS.Timeout | null = null;
  private down = false;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Registers a listener (call from onModuleInit; LISTEN starts at bootstrap). */
  listen(channel: string, listener: NotificationListener): void {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
    this.listeners.set(channel, [...(this.listeners.get(channel) ?? []), listener]);
  }

  /**
   * Keeps an in-process cache consistent with CHANGES_CHANNEL: every announced change (only the
   * tags starting with `prefix`, when given) drops the entries tagged with it, and the cache does
   * not serve while notifications are not being received.
   */
  invalidateOnChange(cache: ChangeTaggedCache, prefix = ''): void {
    this.listen(CHANGES_CHANNEL, {
      onNotification: (tag) => {
        if (tag.startsWith(prefix)) cache.invalidate(tag);
      },
      onListening: (on) => cache.setEnabled(on),
    });
  }

  /**
   * Delivers `payload` to this process's listeners at once, as if it had been notified. For a
   * change this process just made: its own caches drop the entry before it answers, without
   * waiting for the database's notification (which every instance, this one included, still gets).
   */
  publishLocal(channel: string, payload: string): void {
    for (const l of this.listeners.get(channel) ?? []) l.onNotification(payload);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.listeners.size > 0) await this.connect();
  }

  // Before any module's onApplicationShutdown (the embedded server stops in one): its own
  // connection ends as a close, not as a loss.
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    this.setListening(false);
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client(sessionClientConfig(this.db, 'listen'));
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = null;
      this.setListening(false);
      client.removeAllListeners('notification');
      client.end().catch(() => undefined);
      if (this.stopped) return;
      if (!this.down) {
        this.down = true;
        this.logger.warn(
          `notification connection lost${err ? ` (${err.message})` : ''}: in-process caches are bypassed until it is back`,
        );
      }
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (msg) => {
      for (const l of this.listeners.get(msg.channel) ?? []) l.onNotification(msg.payload ?? '');
    });
    try {
      await client.connect();
      for (const channel of this.listeners.keys()) await client.query(`LISTEN ${channel}`);
    } catch (e) {
      onLost(e as Error);
      return;
    }
    if (lost || this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.backoffMs = 100;
    if (this.down) this.logger.log('notification connection is back');
    this.down = false;
    this.setListening(true);
  }

  private scheduleReconnect(): void {
    if (this.retry || this.stopped) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connect();
    }, delay);
    this.retry.unref();
  }

  private setListening(listening: boolean): void {
    for (const ls of this.listeners.values()) for (const l of ls) l.onListening(listening);
  }
}
