import type { Checkpoint } from './gateway-session';
import {
  SESSION_TTL_MS,
  SessionStore,
  type CheckpointResult,
  type StoredSession,
} from './session-store';

interface Entry {
  record: StoredSession;
  owner: string;
  expiresAt: number;
}

/**
 * Sessions in this process (no REDIS_URL): the instance is alone, so only it can resume them.
 * Same contract as the Redis store (owner checks, expiry), held in a Map.
 */
export class MemorySessionStore extends SessionStore {
  readonly shared = false;
  private readonly entries = new Map<string, Entry>();

  create(session: StoredSession, owner: string): Promise<void> {
    this.sweep();
    this.entries.set(session.id, {
      record: { ...session },
      owner,
      expiresAt: Date.now() + SESSION_TTL_MS,
    });
    return Promise.resolve();
  }

  checkpoint(owner: string, points: Map<string, Checkpoint>): Promise<CheckpointResult> {
    const lost: string[] = [];
    const missing: string[] = [];
    for (const [id, p] of points) {
      const entry = this.live(id);
      if (!entry) {
        missing.push(id);
        continue;
      }
      if (entry.owner !== owner) {
        lost.push(id);
        continue;
      }
      entry.record.seq = p.seq;
      entry.record.pos = p.pos;
      if (p.guilds) entry.record.guilds = p.guilds;
      entry.expiresAt = Date.now() + SESSION_TTL_MS;
    }
    return Promise.resolve({ lost, missing });
  }

  claim(id: string, owner: string, userId: string): Promise<StoredSession | null> {
    const entry = this.live(id);
    if (!entry || entry.record.userId !== userId) return Promise.resolve(null);
    entry.owner = owner;
    entry.expiresAt = Date.now() + SESSION_TTL_MS;
    return Promise.resolve({ ...entry.record, guilds: [...entry.record.guilds] });
  }

  drop(id: string): Promise<void> {
    this.entries.delete(id);
    return Promise.resolve();
  }

  private live(id: string): Entry | null {
    const entry = this.entries.get(id);
    if (!entry) return null;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(id);
      return null;
    }
    return entry;
  }

  private sweep(): void {
    if (this.entries.size < 1024) return;
    const now = Date.now();
    for (const [id, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(id);
  }
}
