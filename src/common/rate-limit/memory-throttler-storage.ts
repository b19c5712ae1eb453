import { OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';

interface Window {
  hits: number;
  /** End of the current window (epoch ms). */
  expiresAt: number;
  /** End of the block after the limit was exceeded (epoch ms; 0 = not blocked). */
  blockedUntil: number;
}

const SWEEP_EVERY_MS = 60_000;

/**
 * In-process rate-limit counters: a fixed window per key (`rl:<bucket>:<tracker>`), O(1) per hit
 * and no timers per hit — the window `X-RateLimit-Reset` announces. @nestjs/throttler's own
 * memory storage keeps every hit's timestamp and filters the list on each request, which costs
 * time in proportion to the limit. Expired windows are swept once a minute.
 */
export class MemoryThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS).unref();

  increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    _throttlerName: string,
  ): Promise<{
    totalHits: number;
    timeToExpire: number;
    isBlocked: boolean;
    timeToBlockExpire: number;
  }> {
    const now = Date.now();
    let w = this.windows.get(key);
    if (!w) {
      w = { hits: 0, expiresAt: now + ttl, blockedUntil: 0 };
      this.windows.set(key, w);
    }
    const seconds = (until: number) => Math.max(0, Math.ceil((until - now) / 1000));
    if (w.blockedUntil > now) {
      return Promise.resolve({
        totalHits: w.hits,
        timeToExpire: seconds(w.expiresAt),
        isBlocked: true,
        timeToBlockExpire: seconds(w.blockedUntil),
      });
    }
    if (w.expiresAt <= now || w.blockedUntil !== 0) {
      w.hits = 0;
      w.expiresAt = now + ttl;
      w.blockedUntil = 0;
    }
    w.hits += 1;
    if (w.hits > limit) {
      w.blockedUntil = now + Math.max(blockDuration, 1);
      return Promise.resolve({
        totalHits: w.hits,
        timeToExpire: seconds(w.expiresAt),
        isBlocked: true,
        timeToBlockExpire: seconds(w.blockedUntil),
      });
    }
    return Promise.resolve({
      totalHits: w.hits,
      timeToExpire: seconds(w.expiresAt),
      isBlocked: false,
      timeToBlockExpire: 0,
    });
  }

  /** Drops windows that ended (and blocks that expired). */
  sweep(now = Date.now()): void {
    for (const [key, w] of this.windows) {
      if (w.expiresAt <= now && w.blockedUntil <= now) this.windows.delete(key);
    }
  }

  get size(): number {
    return this.windows.size;
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }
}
