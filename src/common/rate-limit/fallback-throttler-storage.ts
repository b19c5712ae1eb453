import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';

const WARN_EVERY_MS = 30_000;

/**
 * Shared (Redis) counters with a local fallback: when Redis cannot answer, requests are counted
 * in this process instead of failing with a 500. Limits then hold per instance until Redis is
 * back; `/v1/health/ready` reports Redis down meanwhile, so operators see it.
 */
export class FallbackThrottlerStorage implements ThrottlerStorage {
  private readonly logger = new Logger('RateLimitStorage');
  private lastWarning = 0;

  constructor(
    private readonly primary: ThrottlerStorage,
    private readonly fallback: ThrottlerStorage,
  ) {}

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): ReturnType<ThrottlerStorage['increment']> {
    try {
      return await this.primary.increment(key, ttl, limit, blockDuration, throttlerName);
    } catch (err) {
      const now = Date.now();
      if (now - this.lastWarning > WARN_EVERY_MS) {
        this.lastWarning = now;
        this.logger.warn(
          `shared rate-limit storage failed, counting locally: ${(err as Error).message}`,
        );
      }
      return this.fallback.increment(key, ttl, limit, blockDuration, throttlerName);
    }
  }
}
