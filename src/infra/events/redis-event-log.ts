import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { EventLog, type EventListener } from './event-log';
import { compareLogIds, type LoggedEvent, type RealtimeEvent } from './realtime-event';

/** The stream every instance appends to and reads. */
export const EVENTS_STREAM = 'parley:events';
/** How long events stay in the stream (resuming clients replay from it). */
export const LOG_RETENTION_MS = 10 * 60_000;
const READ_BLOCK_MS = 5_000;
const READ_COUNT = 1_000;
const RETRY_MS = 1_000;

type StreamEntry = [id: string, fields: string[]];
type XReadReply = Array<[key: string, entries: StreamEntry[]]> | null;

/**
 * The shared log: a Redis stream. Appends go through the app's Redis client (fail fast while
 * Redis is away: the event is logged and lost, the write it follows is committed already); one
 * dedicated connection per instance reads with XREAD BLOCK from where it last was, so a reader
 * that lost Redis for a moment resumes without a gap while the events are retained
 * (LOG_RETENTION_MS, trimmed on append with MINID).
 */
export class RedisEventLog extends EventLog {
  readonly shared = true;
  position = '0-0';
  private readonly logger = new Logger('EventLog');
  private readonly listeners = new Set<EventListener>();
  private reader: Redis | null = null;
  private closed = false;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly stream = EVENTS_STREAM,
  ) {
    super();
  }

  async append(events: RealtimeEvent[]): Promise<void> {
    if (events.length === 0) return;
    const minId = String(Date.now() - LOG_RETENTION_MS);
    const pipeline = this.redis.pipeline();
    for (const e of events) {
      pipeline.xadd(this.stream, 'MINID', '~', minId, '*', ...encode(e));
    }
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([err]) => err);
    if (failed) throw failed[0] as Error;
  }

  async range(afterId: string): Promise<LoggedEvent[] | null> {
    let info: unknown[];
    try {
      info = (await this.redis.call('XINFO', 'STREAM', this.stream)) as unknown[];
    } catch (err) {
      // No stream: nothing was ever published (MINID trimming never deletes the key).
      if (/no such key/i.test((err as Error).message)) return [];
      throw err;
    }
    let trimmed = '0-0';
    for (let i = 0; i + 1 < info.length; i += 2) {
      // Redis ≥ 7: the newest id ever trimmed; anything after afterId trimmed means a gap.
      if (info[i] === 'max-deleted-entry-id' && typeof info[i + 1] === 'string') {
        trimmed = info[i + 1] as string;
      }
    }
    if (compareLogIds(trimmed, afterId) > 0) return null;
    const events: LoggedEvent[] = [];
    let from = `(${afterId}`;
    for (;;) {
      const entries = (await this.redis.xrange(
        this.stream,
        from,
        '+',
        'COUNT',
        READ_COUNT,
      )) as StreamEntry[];
      for (const [id, f] of entries) {
        const event = decode(id, f);
        if (event) events.push(event);
      }
      if (entries.length < READ_COUNT) return events;
      from = `(${entries[entries.length - 1][0]}`;
    }
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    this.reading ??= this.readLoop();
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    this.reader?.disconnect();
    // A read in flight ends with the connection; never wait on it for longer than a retry.
    await Promise.race([
      this.reading?.catch(() => undefined),
      new Promise((r) => setTimeout(r, RETRY_MS).unref()),
    ]);
  }

  /** Reads from the stream's end at subscription time onwards, in order, until closed. */
  private async readLoop(): Promise<void> {
    // Where reading starts: the stream's end now, asked on the app's client, which is connected
    // already (the reader's own connection is still being made).
    let lastId: string | null = await this.tailId().catch(() => null);
    if (lastId) this.position = lastId;
    // While Redis is away a read fails after one retry; the loop tries again every second.
    this.reader = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: 1 });
    this.reader.on('error', () => undefined);
    let failing = false;
    while (!this.closed) {
      try {
        if (!lastId) this.position = lastId = await this.tailId();
        const reply: XReadReply = await this.reader.xread(
          'COUNT',
          READ_COUNT,
          'BLOCK',
          READ_BLOCK_MS,
          'STREAMS',
          this.stream,
          lastId,
        );
        if (failing) {
          this.logger.log(`reading ${this.stream} again`);
          // While this instance could not read, others may have failed to append (or Redis
          // restarted empty): what was lost cannot be known, so the sessions are told.
          failing = false;
          this.gap();
        }
        const entries: StreamEntry[] = reply?.[0]?.[1] ?? [];
        if (entries.length === 0) continue;
        lastId = entries[entries.length - 1][0];
        const events = entries.flatMap(([id, fields]) => decode(id, fields) ?? []);
        for (const listener of this.listeners) listener(events);
        this.position = lastId;
      } catch (err) {
        if (this.closed) break;
        if (!failing) {
          this.logger.warn(`reading ${this.stream} failed: ${(err as Error).message}; retrying`);
        }
        failing = true;
        await new Promise((r) => setTimeout(r, RETRY_MS).unref());
      }
    }
  }

  /** The id of the stream's newest entry ("0-0" when it is empty). */
  private async tailId(): Promise<string> {
    const last = (await this.redis.xrevrange(this.stream, '+', '-', 'COUNT', 1)) as StreamEntry[];
    return last[0]?.[0] ?? '0-0';
  }
}

function encode(e: RealtimeEvent): string[] {
  const fields = ['t', e.t, 'g', e.guildId, 'd', JSON.stringify(e.d)];
  if (e.channelId) fields.push('c', e.channelId);
  if (e.userId) fields.push('u', e.userId);
  return fields;
}

function decode(id: string, fields: string[]): LoggedEvent | null {
  const f = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) f.set(fields[i], fields[i + 1]);
  const t = f.get('t');
  const guildId = f.get('g');
  const d = f.get('d');
  if (!t || !guildId || !d) return null;
  const event: LoggedEvent = {
    id,
    t: t as LoggedEvent['t'],
    guildId,
    d: JSON.parse(d) as Record<string, unknown>,
  };
  const channelId = f.get('c');
  const userId = f.get('u');
  if (channelId) event.channelId = channelId;
  if (userId) event.userId = userId;
  return event;
}
