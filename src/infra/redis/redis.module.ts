import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
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
      useFactory: (config: AppConfig): Redis | null =>
        config.redisUrl
          ? new Redis(config.redisUrl, {
              maxRetriesPerRequest: 2,
              enableOfflineQueue: true,
              lazyConnect: false,
            })
          : null,
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
