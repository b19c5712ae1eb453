import { Global, Module } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ThrottlerModule, ThrottlerStorage } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type { ExecutionContext } from '@nestjs/common';
import { AppConfig } from '../../config/app.config';
import type { BucketName } from '../../config/rate-limit.config';
import type { ParleyRequest } from '../auth/caller';
import { RedisModule, REDIS } from '../../infra/redis/redis.module';
import type Redis from 'ioredis';
import { RATE_LIMIT_METADATA, type RateLimitMetadata } from './rate-limit.decorator';
import { trackerFor } from './parley-throttler.guard';
import { FallbackThrottlerStorage } from './fallback-throttler-storage';
import { MemoryThrottlerStorage } from './memory-throttler-storage';
import { AttemptCounters } from './attempt-counters';

function routeLimits(reflector: Reflector, context: ExecutionContext): RateLimitMetadata {
  return (
    reflector.getAllAndOverride<RateLimitMetadata>(RATE_LIMIT_METADATA, [
      context.getHandler(),
      context.getClass(),
    ]) ?? { global: true }
  );
}

/**
 * One throttler per bucket of ARCHITECTURE.md §5. A route is counted in `global` (unless exempt) and in
 * the bucket it names with `@RateLimit(...)`. Storage: memory, or Redis when REDIS_URL is set so
 * that every instance shares one budget.
 */
@Global()
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      imports: [RedisModule],
      inject: [AppConfig, Reflector, REDIS],
      useFactory: (config: AppConfig, reflector: Reflector, redis: Redis | null) => {
        const names = Object.keys(config.rateLimits.buckets) as BucketName[];
        return {
          storage: redis
            ? new FallbackThrottlerStorage(
                new ThrottlerStorageRedisService(redis),
                new MemoryThrottlerStorage(),
              )
            : new MemoryThrottlerStorage(),
          throttlers: names.map((name) => {
            const bucket = config.rateLimits.buckets[name];
            return {
              name,
              // Read back for the 429's X-RateLimit-Scope (parley-throttler.guard.ts).
              tracker: bucket.tracker,
              limit: bucket.limit,
              ttl: bucket.ttlMs,
              blockDuration: bucket.ttlMs,
              skipIf: (context: ExecutionContext) => {
                const meta = routeLimits(reflector, context);
                if (meta.skip) return true;
                return name === 'global' ? !meta.global : meta.bucket !== name;
              },
              getTracker: (req: Record<string, unknown>) =>
                trackerFor(bucket.tracker, req as unknown as ParleyRequest),
              generateKey: (_context: ExecutionContext, tracker: string, throttlerName: string) =>
                `rl:${throttlerName}:${tracker}`,
            };
          }),
        };
      },
    }),
  ],
  providers: [AttemptCounters],
  exports: [ThrottlerModule, AttemptCounters],
})
export class RateLimitModule {}

export { ThrottlerStorage };
