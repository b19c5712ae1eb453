import { Controller, Get, HttpCode } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Public } from '../../common/auth/auth.decorator';
import { ErrorResponse } from '../../common/http/error.response';
import { SkipRateLimit } from '../../common/rate-limit/rate-limit.decorator';
import { HealthResponse } from './health.response';
import { ReadinessService } from './readiness.service';

@ApiTags('Health')
@Controller('health')
@Public()
@SkipRateLimit()
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

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
  ready(): Promise<HealthResponse> {
    return this.readiness.check();
  }
}
