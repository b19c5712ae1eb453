import { applyDecorators } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiExtraModels,
  ApiInternalServerErrorResponse,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import { ErrorResponse, RateLimitResponse } from './error.response';

const RATE_LIMIT_HEADERS = {
  'Retry-After': { description: 'Seconds to wait (on 429 only)', schema: { type: 'integer' } },
  'X-RateLimit-Limit': {
    description: 'Requests allowed in the current window',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': { description: 'Requests remaining', schema: { type: 'integer' } },
  'X-RateLimit-Reset': {
    description: 'Unix timestamp (seconds) when the limit resets',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Global': {
    description: 'Whether the global limit was hit',
    schema: { type: 'boolean' },
  },
};

/** The 400/429/500 responses every route shares; `@Auth` adds 401/403. Applied once per controller. */
export function ApiStandardErrors(): ClassDecorator & MethodDecorator {
  return applyDecorators(
    ApiExtraModels(ErrorResponse, RateLimitResponse),
    ApiBadRequestResponse({
      type: ErrorResponse,
      description: 'Malformed request or invalid data',
    }),
    ApiTooManyRequestsResponse({
      type: RateLimitResponse,
      description: 'Rate limited',
      headers: RATE_LIMIT_HEADERS,
    }),
    ApiInternalServerErrorResponse({
      type: ErrorResponse,
      description: 'Unexpected internal error',
    }),
  );
}
