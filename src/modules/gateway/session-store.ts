import type { Checkpoint } from './gateway-session';

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
  pos: number;
  /** …and the guilds followed then (guild id → holds VIEW_CHANNEL). */
  guilds: Array<[string, boolean]>;
}

/**
 * Where gateway sessions are kept for resuming: each session's settings and a checkpoint —
 * sequence, log position, guilds — written by the instance that owns it (checkpointer.ts).
 * Another instance resumes a session by claiming it and replaying the event log from the
 * checkpoint through the same routing, which yields the same frames with the same sequence
 * numbers. In this process (memory-session-store.ts) when the instance is alone, in Redis
 * (redis-session-store.ts) with REDIS_URL, so any instance can resume any session.
 */
export abstract class SessionStore {
  /** True when other instances can claim what this one stores. */
  abstract readonly shared: boolean;

  abstract create(session: StoredSession, owner: string): Promise<void>;

  /**
   * Writes checkpoints; returns the ids `owner` no longer owns (another instance claimed them)
   * and those whose record is gone (expired, or the store restarted empty).
   */
  abstract checkpoint(owner: string, points: Map<string, Checkpoint>): Promise<CheckpointResult>;

  /**
   * Makes `owner` the owner and returns the session, or null when it expired, never was, or is
   * not `userId`'s (then nothing changes).
   */
  abstract claim(id: string, owner: string, userId: string): Promise<StoredSession | null>;

  abstract drop(id: string): Promise<void>;
}

export interface CheckpointResult {
  lost: string[];
  missing: string[];
}

/** Records live this long after their last write: a session's resume window. */
export { RESUME_WINDOW_MS as SESSION_TTL_MS } from './gateway-session';
