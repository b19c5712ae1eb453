import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { NO_RATE_LIMIT_EXTENSION } from '../openapi/api-errors.decorator';
import type { BucketName } from '../../config/rate-limit.config';

export const RATE_LIMIT_METADATA = 'parley:rate-limit';

export interface RateLimitMetadata {
  /** The route's named bucket (ARCHITECTURE.md §5), counted in addition to `global`. */
  bucket?: BucketName;
  /** Whether the per-identity global bucket applies (execute buckets are exempt). */
  global: boolean;
  /** No limits at all (health probes). */
  skip?: boolean;
}

/** Puts a route in a named rate-limit bucket. */
export function RateLimit(bucket: BucketName, options: { global?: boolean } = {}) {
  return applyDecorators(
    SetMetadata(RATE_LIMIT_METADATA, {
      bucket,
      global: options.global ?? true,
    } satisfies RateLimitMetadata),
  );
}

/** Exempts a route from every rate limit (liveness/readiness probes). */
export const SkipRateLimit = () =>
  applyDecorators(
    SetMetadata(RATE_LIMIT_METADATA, { global: false, skip: true } satisfies RateLimitMetadata),
    ApiExtension(NO_RATE_LIMIT_EXTENSION, true),
  );
