import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/auth/auth.decorator';
import { NotLogged } from '../../common/http/route-policy';
import { SkipRateLimit } from '../../common/rate-limit/rate-limit.decorator';
import { HealthResponse } from './health.response';
import { ReadinessService } from './readiness.service';

@ApiTags('Health')
@Controller('health')
@Public()
@SkipRateLimit()
@NotLogged()
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  /** Liveness: the process is up and serving HTTP. */
  @Get('live')
  @ApiOperation({
    operationId: 'health_live',
    summary: 'Liveness probe',
    description: 'The process is up and serving HTTP. No rate limit.',
  })
  @ApiOkResponse({ type: HealthResponse, description: 'Alive.' })
  live(): HealthResponse {
    return { status: 'ok', checks: {} };
  }

  /** Readiness: the database answers (and Redis, when configured). */
  @Get('ready')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'health_ready',
    summary: 'Readiness probe',
    description:
      'Ready when the database answers (and Redis, when configured); 503 ' +
      'SERVICE_UNAVAILABLE with the failing `checks` otherwise, and while shutting down. No ' +
      'rate limit.',
  })
  @ApiOkResponse({ type: HealthResponse, description: 'Ready: every check passed.' })
  ready(): Promise<HealthResponse> {
    return this.readiness.check();
  }
}
