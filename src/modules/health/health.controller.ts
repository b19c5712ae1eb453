import { Controller, Get, HttpCode, Inject } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { Public } from '../../common/auth/auth.decorator';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { ErrorResponse } from '../../common/http/error.response';
import { SkipRateLimit } from '../../common/rate-limit/rate-limit.decorator';
import { REDIS } from '../../infra/redis/redis.module';
import { HealthResponse } from './health.response';

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([
    p,
    new Promise<never>((_, rej) => setTimeout(() => rej(new Error('timeout')), ms).unref()),
  ]);

@ApiTags('Health')
@Controller('health')
@Public()
@SkipRateLimit()
export class HealthController {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(REDIS) private readonly redis: Redis | null,
  ) {}

  /** Liveness: the process is up and serving HTTP. */
  @Get('live')
  @ApiOperation({ operationId: 'health_live' })
  @ApiOkResponse({ type: HealthResponse })
  live(): HealthResponse {
    return { status: 'ok', checks: {} };
  }

  /** Readiness: the database answers (and Redis, when configured). */
  @Get('ready')
  @HttpCode(200)
  @ApiOperation({ operationId: 'health_ready' })
  @ApiOkResponse({ type: HealthResponse })
  @ApiServiceUnavailableResponse({ type: ErrorResponse })
  async ready(): Promise<HealthResponse> {
    const checks: Record<string, 'ok' | 'down'> = {};
    checks.database = await withTimeout(this.db.query('SELECT 1'), 2000).then(
      () => 'ok' as const,
      () => 'down' as const,
    );
    if (this.redis) {
      checks.redis = await withTimeout(this.redis.ping(), 2000).then(
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
