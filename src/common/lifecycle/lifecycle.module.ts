import { Global, Module } from '@nestjs/common';
import { DatabaseOutageTracker } from './database-outage.tracker';
import { DrainState } from './drain-state';

/**
 * The instance's own state as the outside sees it: draining for shutdown, database outage.
 * Global, so the exception filter (registered in AppModule) and readiness can inject it; the
 * health module imports it.
 */
@Global()
@Module({
  providers: [DrainState, DatabaseOutageTracker],
  exports: [DrainState, DatabaseOutageTracker],
})
export class LifecycleModule {}
