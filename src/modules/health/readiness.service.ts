import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { isDatabaseUnavailable } from '../../common/errors/database-unavailable';
import { ErrorCode } from '../../common/errors/error-code';
import { DatabaseOutageTracker } from '../../common/lifecycle/database-outage.tracker';
import { DrainState } from '../../common/lifecycle/drain-state';
import { withTimeout } from '../../common/lifecycle/with-timeout';
import { REDIS } from '../../infra/redis/redis.module';
import type { HealthResponse } from './health.response';

const CHECK_TIMEOUT_MS = 2_000;

/**
 * Whether this instance should get traffic: not while it drains for shutdown (answered at
 * once, without touching a dependency), nor while the database — or Redis, when configured —
 * does not answer within 2 s.
 */
@Injectable()
export class ReadinessService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(REDIS) private readonly redis: Redis | null,
    private readonly drain: DrainState,
    private readonly outage: DatabaseOutageTracker,
  ) {}

  /** The checks when ready; otherwise throws 503 SERVICE_UNAVAILABLE naming what is down. */
  async check(): Promise<HealthResponse> {
    if (this.drain.draining) {
      throw new ApiError(ErrorCode.ServiceUnavailable, 'The server is shutting down.', {
        checks: { server: 'draining' },
      });
    }
    const checks: Record<string, 'ok' | 'down'> = {};
    checks.database = await withTimeout(this.db.query('SELECT 1'), CHECK_TIMEOUT_MS).then(
      () => 'ok' as const,
      (err: unknown) => {
        // A probe alone (no traffic) notices an outage too.
        if (isDatabaseUnavailable(err)) this.outage.failed(err);
        return 'down' as const;
      },
    );
    if (this.redis) {
      checks.redis = await withTimeout(this.redis.ping(), CHECK_TIMEOUT_MS).then(
        () => 'ok' as const,
        () => 'down' as const,
      );
    }
    if (Object.values(checks).some((c) => c !== 'ok')) {
      throw new ApiError(ErrorCode.ServiceUnavailable, 'A dependency is not ready.', { checks });
    }
    return { status: 'ok', checks };
  }
}
