import type Redis from 'ioredis';

/** A session's presence (Discord's shape, as op 3 and identify's `presence` set it). */
export interface Presence {
  status: 'online' | 'idle' | 'dnd' | 'invisible';
  activities: Array<Record<string, unknown>>;
  since: number | null;
  afk: boolean;
}

/** A presence as stored: with when its session last said it is alive. */
interface Held extends Presence {
  at: number;
}

/** A session's presence older than this is left over from an instance that died. */
export const PRESENCE_STALE_MS = 5 * 60_000;

/**
 * The presences of every session, on every instance: a user's presence is that of their session
 * that set one last (Discord shows one per user). Sessions refresh theirs while they live
 * (PresenceService), so what a dead instance left behind goes stale and is ignored.
 */
export abstract class PresenceStore {
  abstract set(userId: string, sessionId: string, presence: Presence): Promise<void>;
  /** Forgets a session's presence; the user's presence without it (null: offline). */
  abstract remove(userId: string, sessionId: string): Promise<Presence | null>;
  /** The current presences of those of `userIds` who are visible (online, idle or dnd). */
  abstract of(userIds: string[]): Promise<Map<string, Presence>>;
}

/** The newest live presence of a user's sessions (null: none, or only invisible). */
export function current(held: Iterable<Held>, now = Date.now()): Presence | null {
  let best: Held | null = null;
  for (const h of held) {
    if (now - h.at > PRESENCE_STALE_MS) continue;
    if (!best || h.at > best.at) best = h;
  }
  if (!best || best.status === 'invisible') return null;
  const { at: _at, ...presence } = best;
  return presence;
}

/** This process only (no REDIS_URL). */
export class MemoryPresenceStore extends PresenceStore {
  private readonly users = new Map<string, Map<string, Held>>();

  set(userId: string, sessionId: string, presence: Presence): Promise<void> {
    let sessions = this.users.get(userId);
    if (!sessions) this.users.set(userId, (sessions = new Map<string, Held>()));
    sessions.set(sessionId, { ...presence, at: Date.now() });
    return Promise.resolve();
  }

  remove(userId: string, sessionId: string): Promise<Presence | null> {
    const sessions = this.users.get(userId);
    sessions?.delete(sessionId);
    if (sessions?.size === 0) this.users.delete(userId);
    return Promise.resolve(sessions ? current(sessions.values()) : null);
  }

  of(userIds: string[]): Promise<Map<string, Presence>> {
    const out = new Map<string, Presence>();
    for (const id of userIds) {
      const sessions = this.users.get(id);
      const presence = sessions && current(sessions.values());
      if (presence) out.set(id, presence);
    }
    return Promise.resolve(out);
  }
}

/** Every instance (REDIS_URL): a hash per user, `parley:presence:<user>`, a field per session. */
export class RedisPresenceStore extends PresenceStore {
  constructor(private readonly redis: Redis) {
    super();
  }

  async set(userId: string, sessionId: string, presence: Presence): Promise<void> {
    const key = keyOf(userId);
    await this.redis
      .multi()
      .hset(key, sessionId, JSON.stringify({ ...presence, at: Date.now() }))
      .pexpire(key, PRESENCE_STALE_MS * 2)
      .exec();
  }

  async remove(userId: string, sessionId: string): Promise<Presence | null> {
    const key = keyOf(userId);
    const [, left] = (await this.redis.multi().hdel(key, sessionId).hgetall(key).exec()) ?? [];
    return current(parseAll((left?.[1] as Record<string, string> | undefined) ?? {}));
  }

  async of(userIds: string[]): Promise<Map<string, Presence>> {
    const out = new Map<string, Presence>();
    if (userIds.length === 0) return out;
    const pipeline = this.redis.pipeline();
    for (const id of userIds) pipeline.hgetall(keyOf(id));
    const replies = (await pipeline.exec()) ?? [];
    replies.forEach(([err, fields], i) => {
      if (err) return;
      const presence = current(parseAll(fields as Record<string, string>));
      if (presence) out.set(userIds[i], presence);
    });
    return out;
  }
}

const keyOf = (userId: string) => `parley:presence:${userId}`;

function parseAll(fields: Record<string, string>): Held[] {
  const out: Held[] = [];
  for (const text of Object.values(fields)) {
    try {
      out.push(JSON.parse(text) as Held);
    } catch {
      // A field that is not ours: ignored.
    }
  }
  return out;
}
