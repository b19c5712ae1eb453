import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type Redis from 'ioredis';
import { AppConfig } from '../../config/app.config';
import { REDIS } from '../redis/redis.module';
import { EphemeralEvents } from './ephemeral-events';
import { EventLog } from './event-log';
import { EventRelay } from './event-relay';
import { EventTransport } from './event-transport';
import { MemoryEventTransport } from './memory-event-transport';
import { RealtimeEventEntity, RealtimeEventLogEntity } from './realtime-event.entity';
import { RealtimeEvents } from './realtime-events';
import { RedisEventTransport } from './redis-event-transport';

/**
 * The realtime event path up to the gateway (ARCHITECTURE.md §7): aggregates write their events
 * in the outbox with their change (RealtimeEvents), the relay numbers them (EventRelay) and hands
 * them to every instance (EventTransport: this process, or Redis with REDIS_URL), where the log
 * reader (EventLog) delivers them in order — reading PostgreSQL for whatever the transport missed.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([RealtimeEventEntity, RealtimeEventLogEntity])],
  providers: [
    {
      provide: EventTransport,
      inject: [REDIS, AppConfig],
      useFactory: (redis: Redis | null, config: AppConfig): EventTransport =>
        redis ? new RedisEventTransport(redis, config.redisKeyPrefix) : new MemoryEventTransport(),
    },
    EventLog,
    EventRelay,
    RealtimeEvents,
    EphemeralEvents,
  ],
  exports: [EventLog, EventRelay, RealtimeEvents, EphemeralEvents],
})
export class EventsModule {}
