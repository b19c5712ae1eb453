import type Redis from 'ioredis';
import type { Checkpoint } from './gateway-session';
import {
  SESSION_TTL_MS,
  SessionStore,
  type CheckpointResult,
  type StoredSession,
} from './session-store';

const TTL_SECONDS = Math.ceil(SESSION_TTL_MS / 1000);
/** The session's hash (the client adds REDIS_KEY_PREFIX). */
const key = (id: string) => `parley:gw:session:${id}`;

// Writes a checkpoint only while this instance owns the session: 0 when another took it over,
// -1 when the record is gone (Redis restarted empty: the owner writes it again).
const CHECKPOINT = `
local owner = redis.call('HGET', KEYS[1], 'owner')
if not owner then return -1 end
if owner ~= ARGV[1] then return 0 end
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

/** Sessions in Redis (REDIS_URL): any instance can resume any session (session-store.ts). */
export class RedisSessionStore extends SessionStore {
  readonly shared = true;

  constructor(private readonly redis: Redis) {
    super();
  }

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
        pos: String(session.pos),
        guilds: JSON.stringify(session.guilds),
        owner,
      })
      .expire(key(session.id), TTL_SECONDS)
      .exec();
  }

  async checkpoint(owner: string, points: Map<string, Checkpoint>): Promise<CheckpointResult> {
    if (points.size === 0) return { lost: [], missing: [] };
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
        String(p.pos),
        p.guilds ? JSON.stringify(p.guilds) : '',
        String(TTL_SECONDS),
      );
    }
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([err]) => err);
    if (failed) throw failed[0] as Error;
    return {
      lost: ids.filter((_, i) => results[i]?.[1] === 0),
      missing: ids.filter((_, i) => results[i]?.[1] === -1),
    };
  }

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
    const seq = Number(rec.get('seq') ?? 0);
    const pos = Number(rec.get('pos') ?? 0);
    // A record from before positions were numbers ("<ms>-<n>" stream ids) cannot be replayed.
    if (!Number.isSafeInteger(seq) || !Number.isSafeInteger(pos)) return null;
    return {
      id,
      ...meta,
      seq,
      pos,
      guilds: JSON.parse(rec.get('guilds') ?? '[]') as Array<[string, boolean]>,
    };
  }

  async drop(id: string): Promise<void> {
    await this.redis.del(key(id));
  }
}
