import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { once } from 'node:events';
import Redis from 'ioredis';
import { AppConfig } from '../../config/app.config';

/** Injection token of the shared ioredis client, or null when REDIS_URL is not set. */
export const REDIS = Symbol('REDIS');

@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [AppConfig],
      useFactory: async (config: AppConfig): Promise<Redis | null> => {
        if (!config.redisUrl) return null;
        // Fail fast while disconnected: rate limits then count locally instead of waiting.
        const redis = new Redis(config.redisUrl, {
          maxRetriesPerRequest: 1,
          enableOfflineQueue: false,
          connectTimeout: 2_000,
          lazyConnect: false,
          // Every key of every user of this client (and its duplicates); channels are
          // prefixed by their users (pub/sub names are not keys).
          keyPrefix: config.redisKeyPrefix || undefined,
        });
        const logger = new Logger('Redis');
        let lastWarning = 0;
        redis.on('error', (err: Error) => {
          if (Date.now() - lastWarning < 30_000) return;
          lastWarning = Date.now();
          logger.warn(`Redis unavailable: ${err.message}`);
        });
        // Start connected when Redis is there; boot anyway (degraded, see /health/ready) if not.
        await Promise.race([
          once(redis, 'ready'),
          new Promise((resolve) => setTimeout(resolve, 2_000).unref()),
        ]).catch(() => undefined);
        return redis;
      },
    },
  ],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis | null) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.redis && this.redis.status !== 'end')
      await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}
