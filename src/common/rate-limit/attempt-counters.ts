import { Inject, Injectable, Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { REDIS } from '../../infra/redis/redis.module';

/** A counter's value and how long its window still runs. */
export interface AttemptCount {
  count: number;
  /** Milliseconds until the window (counted from the first attempt) closes; 0 when none is open. */
  ttlMs: number;
}

const MAX_MEMORY_ENTRIES = 100_000;

/**
 * Counters of attempts keyed by what they are about (an account and an address, a target
 * mailbox), for limits a route's rate-limit bucket cannot express because the key is in the body.
 * Each window starts at its first attempt. In Redis when configured (shared by every instance),
 * otherwise — and whenever Redis cannot answer — in this process's memory.
 */
@Injectable()
export class AttemptCounters {
  private readonly memory = new Map<string, { count: number; expiresAt: number }>();
  private readonly logger = new Logger(AttemptCounters.name);

  constructor(@Inject(REDIS) private readonly redis: Redis | null) {}

  /** Counts one attempt; returns the count including it. */
  async hit(key: string, windowMs: number): Promise<AttemptCount> {
    if (this.redis) {
      try {
        // SET NX starts the window at the first attempt; INCR counts (any Redis version).
        const res = await this.redis
          .multi()
          .set(key, 0, 'PX', windowMs, 'NX')
          .incr(key)
          .pttl(key)
          .exec();
        return {
          count: Number(res?.[1]?.[1] ?? 1),
          ttlMs: Math.max(0, Number(res?.[2]?.[1] ?? 0)),
        };
      } catch (err) {
        this.redisFailed(err);
      }
    }
    const now = Date.now();
    const entry = this.memory.get(key);
    if (!entry || entry.expiresAt <= now) {
      if (this.memory.size >= MAX_MEMORY_ENTRIES) this.sweep(now);
      this.memory.set(key, { count: 1, expiresAt: now + windowMs });
      return { count: 1, ttlMs: windowMs };
    }
    entry.count += 1;
    return { count: entry.count, ttlMs: entry.expiresAt - now };
  }

  /** The current count, without counting. */
  async peek(key: string): Promise<AttemptCount> {
    if (this.redis) {
      try {
        const res = await this.redis.multi().get(key).pttl(key).exec();
        const count = Number(res?.[0]?.[1] ?? 0);
        return {
          count: Number.isFinite(count) ? count : 0,
          ttlMs: Math.max(0, Number(res?.[1]?.[1] ?? 0)),
        };
      } catch (err) {
        this.redisFailed(err);
      }
    }
    const entry = this.memory.get(key);
    const now = Date.now();
    if (!entry || entry.expiresAt <= now) return { count: 0, ttlMs: 0 };
    return { count: entry.count, ttlMs: entry.expiresAt - now };
  }

  /**
   * Takes a slot that stays taken for `ms`: true for the first caller, false for everyone else
   * until it expires (spacing attempts out, e.g. one per 2 s).
   */
  async claim(key: string, ms: number): Promise<boolean> {
    if (this.redis) {
      try {
        return (await this.redis.set(key, 1, 'PX', ms, 'NX')) === 'OK';
      } catch (err) {
        this.redisFailed(err);
      }
    }
    const now = Date.now();
    const entry = this.memory.get(key);
    if (entry && entry.expiresAt > now) return false;
    this.memory.set(key, { count: 1, expiresAt: now + ms });
    return true;
  }

  async clear(key: string): Promise<void> {
    this.memory.delete(key);
    if (this.redis) await this.redis.del(key).catch((err: unknown) => this.redisFailed(err));
  }

  // When Redis cannot answer, count in this process rather than failing requests with a 500.
  private redisFailed(err: unknown): void {
    this.logger.warn(`attempt counter falls back to memory: ${(err as Error).message}`);
  }

  private sweep(now: number): void {
    for (const [k, v] of this.memory) if (v.expiresAt <= now) this.memory.delete(k);
    if (this.memory.size >= MAX_MEMORY_ENTRIES) this.memory.clear();
  }
}
