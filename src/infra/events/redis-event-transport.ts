import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { EventTransport, type TransportReader } from './event-transport';
import type { EventName, LoggedEvent } from './realtime-event';

/** Entries the stream keeps: a reader further behind reads PostgreSQL (EventLog). */
const STREAM_MAX_LENGTH = 50_000;
const READ_BLOCK_MS = 5_000;
const READ_COUNT = 1_000;
const RETRY_MS = 1_000;

type StreamEntry = [id: string, fields: string[]];
type XReadReply = Array<[key: string, entries: StreamEntry[]]> | null;

/**
 * The shared transport (REDIS_URL): a Redis stream (`parley:events`) that the relay appends to
 * and every instance reads with XREAD BLOCK on a connection of its own, plus a pub/sub channel
 * (`parley:events:wake`, after REDIS_KEY_PREFIX like every key) on which an instance that committed events wakes the relay. An entry
 * carries the event's position, id, routing fields and payload text; nothing is parsed on the
 * way (the payload is JSON text from the writer to the socket).
 */
export class RedisEventTransport extends EventTransport {
  readonly shared = true;
  private readonly logger = new Logger('EventTransport');
  private readonly stream = 'parley:events';
  private readonly wakeChannel: string;
  private readonly ephemeralChannel: string;
  private reader: Redis | null = null;
  private subscriber: Redis | null = null;
  /** What each subscribed channel's messages go to (one subscriber connection for all). */
  private readonly handlers = new Map<string, (message: string) => void>();
  private closed = false;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly redis: Redis,
    /** REDIS_KEY_PREFIX: the client prefixes keys itself, channels are named here. */
    channelPrefix: string,
  ) {
    super();
    this.wakeChannel = `${channelPrefix}parley:events:wake`;
    this.ephemeralChannel = `${channelPrefix}parley:events:ephemeral`;
  }

  async send(events: LoggedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const e of events) {
      pipeline.xadd(this.stream, 'MAXLEN', '~', STREAM_MAX_LENGTH, '*', ...encode(e));
    }
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([err]) => err);
    if (failed) throw failed[0] as Error;
  }

  start(reader: TransportReader): void {
    this.reading ??= this.readLoop(reader);
  }

  wake(): void {
    // Best effort: the relay also polls.
    this.redis.publish(this.wakeChannel, '1').catch(() => undefined);
  }

  onWake(listener: () => void): void {
    this.listen(this.wakeChannel, () => listener());
  }

  sendEphemeral(event: LoggedEvent): void {
    // Best effort, as on Discord: a typing indicator lost while Redis is away is not missed.
    this.redis.publish(this.ephemeralChannel, JSON.stringify(encode(event))).catch(() => undefined);
  }

  onEphemeral(listener: (event: LoggedEvent) => void): void {
    this.listen(this.ephemeralChannel, (message) => {
      const event = decode(JSON.parse(message) as string[], true);
      if (event) listener(event);
    });
  }

  /** Subscribes `handler` to `channel` on the instance's one subscriber connection. */
  private listen(channel: string, handler: (message: string) => void): void {
    this.handlers.set(channel, handler);
    if (!this.subscriber) {
      const sub = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
      this.subscriber = sub;
      sub.on('error', () => undefined);
      sub.on('message', (ch: string, message: string) => this.handlers.get(ch)?.(message));
    }
    this.subscriber.subscribe(channel).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.reader?.disconnect();
    this.subscriber?.disconnect();
    // A read in flight ends with the connection; never wait on it for longer than a retry.
    await Promise.race([
      this.reading?.catch(() => undefined),
      new Promise((r) => setTimeout(r, RETRY_MS).unref()),
    ]);
  }

  /** Reads from the stream's end at start onwards, until closed. */
  private async readLoop(target: TransportReader): Promise<void> {
    this.reader = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: 1 });
    this.reader.on('error', () => undefined);
    let lastId: string | null = null;
    let reading: boolean | null = null;
    const report = (now: boolean) => {
      if (reading === now) return;
      reading = now;
      target.onReading(now);
    };
    while (!this.closed) {
      try {
        lastId ??= await this.tailId(this.reader);
        const reply: XReadReply = await this.reader.xread(
          'COUNT',
          READ_COUNT,
          'BLOCK',
          READ_BLOCK_MS,
          'STREAMS',
          this.stream,
          lastId,
        );
        report(true);
        const entries: StreamEntry[] = reply?.[0]?.[1] ?? [];
        if (entries.length === 0) continue;
        lastId = entries[entries.length - 1][0];
        const events: LoggedEvent[] = [];
        for (const [, fields] of entries) {
          const event = decode(fields);
          if (event) events.push(event);
        }
        if (events.length > 0) target.onEvents(events);
      } catch (err) {
        if (this.closed) break;
        if (reading !== false) {
          this.logger.warn(`reading ${this.stream} failed: ${(err as Error).message}; retrying`);
        }
        report(false);
        await new Promise((r) => setTimeout(r, RETRY_MS).unref());
      }
    }
  }

  /** The id of the stream's newest entry ("0-0" when it is empty). */
  private async tailId(redis: Redis): Promise<string> {
    const last = (await redis.xrevrange(this.stream, '+', '-', 'COUNT', 1)) as StreamEntry[];
    return last[0]?.[0] ?? '0-0';
  }
}

function encode(e: LoggedEvent): string[] {
  const fields = ['p', String(e.position), 'i', e.id, 't', e.t, 'd', e.data];
  if (e.guildId) fields.push('g', e.guildId);
  if (e.channelId) fields.push('c', e.channelId);
  if (e.userId) fields.push('u', e.userId);
  if (e.authorId) fields.push('a', e.authorId);
  if (e.mentionIds && e.mentionIds.length > 0) fields.push('m', e.mentionIds.join(','));
  return fields;
}

/** An entry's event; `ephemeral` events have no position (0). */
function decode(fields: string[], ephemeral = false): LoggedEvent | null {
  const event: LoggedEvent = {
    position: 0,
    id: '',
    t: '' as EventName,
    guildId: null,
    channelId: null,
    userId: null,
    authorId: null,
    mentionIds: null,
    data: '',
  };
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const v = fields[i + 1];
    switch (fields[i]) {
      case 'p':
        event.position = Number(v);
        break;
      case 'i':
        event.id = v;
        break;
      case 't':
        event.t = v as EventName;
        break;
      case 'd':
        event.data = v;
        break;
      case 'g':
        event.guildId = v;
        break;
      case 'c':
        event.channelId = v;
        break;
      case 'u':
        event.userId = v;
        break;
      case 'a':
        event.authorId = v;
        break;
      case 'm':
        event.mentionIds = v.split(',');
        break;
    }
  }
  const numbered = Number.isSafeInteger(event.position) && (ephemeral || event.position > 0);
  return numbered && event.t && event.data ? event : null;
}
