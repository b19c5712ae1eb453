import type Redis from 'ioredis';
import { RESUME_WINDOW_MS } from './gateway-session';

/** What another instance needs to take a session over (never the credential: resume presents it). */
export interface StoredSession {
  id: string;
  userId: string;
  bot: boolean;
  applicationId: string | null;
  intents: number;
  shard: [number, number];
  largeThreshold: number;
  /** Checkpoint: the sequence number reached once the log was routed up to `pos`… */
  seq: number;
  pos: string;
  /** …and the guilds followed then (guild id → holds VIEW_CHANNEL). */
  guilds: Array<[string, boolean]>;
}

export interface Checkpoint {
  seq: number;
  pos: string;
  /** Only when they changed since the last checkpoint. */
  guilds?: Array<[string, boolean]>;
}

const TTL_SECONDS = Math.ceil(RESUME_WINDOW_MS / 1000);
const key = (id: string) => `parley:gw:session:${id}`;

// Writes a checkpoint only while this instance owns the session; 0 when another took it over.
const CHECKPOINT = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'seq', ARGV[2], 'pos', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'guilds', ARGV[4]) end
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1`;

// Takes a session over — only for the user it belongs to: the new owner, and the record as it is.
const CLAIM = `
local meta = redis.call('HGET', KEYS[1], 'meta')
if not meta then return nil end
if cjson.decode(meta)['userId'] ~= ARGV[3] then return nil end
local rec = redis.call('HGETALL', KEYS[1])
redis.call('HSET', KEYS[1], 'owner', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return rec`;

/**
 * Gateway sessions where every instance can resume them (Redis, with REDIS_URL): each session's
 * settings and a checkpoint — sequence, log position, guilds — written about once a second by the
 * instance that owns it. Another instance resumes it by replaying the event log from the
 * checkpoint through the same routing, which yields the same frames with the same sequence
 * numbers (GatewayDispatcher is deterministic given the log). Records expire RESUME_WINDOW_MS
 * after their last write.
 */
export class RedisSessionStore {
  constructor(private readonly redis: Redis) {}

  async create(session: StoredSession, owner: string): Promise<void> {
    await this.redis
      .multi()
      .hset(key(session.id), {
        meta: JSON.stringify({
          userId: session.userId,
          bot: session.bot,
          applicationId: session.applicationId,
          intents: session.intents,
          shard: session.shard,
          largeThreshold: session.largeThreshold,
        }),
        seq: String(session.seq),
        pos: session.pos,
        guilds: JSON.stringify(session.guilds),
        owner,
      })
      .expire(key(session.id), TTL_SECONDS)
      .exec();
  }

  /** Writes checkpoints in one round trip; returns the ids this instance no longer owns. */
  async checkpoint(owner: string, points: Map<string, Checkpoint>): Promise<string[]> {
    if (points.size === 0) return [];
    const pipeline = this.redis.pipeline();
    const ids = [...points.keys()];
    for (const id of ids) {
      const p = points.get(id)!;
      pipeline.eval(
        CHECKPOINT,
        1,
        key(id),
        owner,
        String(p.seq),
        p.pos,
        p.guilds ? JSON.stringify(p.guilds) : '',
        String(TTL_SECONDS),
      );
    }
    const results = (await pipeline.exec()) ?? [];
    return ids.filter((_, i) => results[i]?.[1] === 0);
  }

  /**
   * Makes `owner` the owner and returns the session, or null when it expired, never was, or is
   * not `userId`'s (then nothing changes).
   */
  async claim(id: string, owner: string, userId: string): Promise<StoredSession | null> {
    const flat = (await this.redis.eval(CLAIM, 1, key(id), owner, String(TTL_SECONDS), userId)) as
      string[] | null;
    if (!flat) return null;
    const rec = new Map<string, string>();
    for (let i = 0; i + 1 < flat.length; i += 2) rec.set(flat[i], flat[i + 1]);
    const meta = JSON.parse(rec.get('meta') ?? '{}') as Omit<
      StoredSession,
      'id' | 'seq' | 'pos' | 'guilds'
    >;
    return {
      id,
      ...meta,
      seq: Number(rec.get('seq') ?? 0),
      pos: rec.get('pos') ?? '0-0',
      guilds: JSON.parse(rec.get('guilds') ?? '[]') as Array<[string, boolean]>,
    };
  }

  async drop(id: string): Promise<void> {
    await this.redis.del(key(id));
  }
}
