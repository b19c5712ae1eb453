import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import type Redis from 'ioredis';
import { REDIS } from '../redis/redis.module';
import { EventLog } from './event-log';
import { MemoryEventLog } from './memory-event-log';
import { RealtimeEvents } from './realtime-events';
import { RedisEventLog } from './redis-event-log';

/**
 * The realtime event path's first half: aggregates publish through RealtimeEvents after commit;
 * the log carries the events to every instance (Redis when REDIS_URL is set, else this process).
 */
@Global()
@Module({
  providers: [
    {
      provide: EventLog,
      inject: [REDIS],
      useFactory: (redis: Redis | null): EventLog =>
        redis ? new RedisEventLog(redis) : new MemoryEventLog(),
    },
    RealtimeEvents,
  ],
  exports: [EventLog, RealtimeEvents],
})
export class EventsModule implements OnApplicationShutdown {
  constructor(@Inject(EventLog) private readonly log: EventLog) {}

  async onApplicationShutdown(): Promise<void> {
    await this.log.close();
  }
}
