import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, type ThrottlerStorage } from '@nestjs/throttler';
import { sha256 } from '../../common/crypto/tokens';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';

export const LOGIN_FAILURES_ALLOWED = 5;
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60_000;
// A failure weighs FAILURE_WEIGHT hits plus the attempt's own hit; see `check`.
const FAILURE_WEIGHT = 9;
const LIMIT = LOGIN_FAILURES_ALLOWED * (FAILURE_WEIGHT + 1);
const NAME = 'login-email';

/**
 * Per-e-mail brute-force brake: after 5 failed logins in 15 minutes the address answers 429 for
 * 15 minutes, whatever the password. It uses the throttler's storage (memory or Redis), whose only
 * operation is "increment and tell": every attempt adds 1 hit before the password is checked
 * (that is the read), and a failure adds 9 more. Five failures make 50 hits, so the sixth attempt
 * is blocked; successes cost 1, so a user who keeps logging in correctly needs ~50 logins in the
 * window to trip it.
 */
@Injectable()
export class LoginAttemptsLimiter {
  constructor(@InjectThrottlerStorage() private readonly storage: ThrottlerStorage) {}

  private key(email: string): string {
    return `login-email:${sha256(email.trim().toLowerCase()).toString('hex')}`;
  }

  private hit(email: string) {
    return this.storage.increment(
      this.key(email),
      LOGIN_FAILURE_WINDOW_MS,
      LIMIT,
      LOGIN_FAILURE_WINDOW_MS,
      NAME,
    );
  }

  /** Counts the attempt; throws 429 while the address is blocked. */
  async check(email: string): Promise<void> {
    const record = await this.hit(email);
    if (record.isBlocked) throw rateLimited(record.timeToBlockExpire);
  }

  async recordFailure(email: string): Promise<void> {
    for (let i = 0; i < FAILURE_WEIGHT; i++) await this.hit(email);
  }
}

export function rateLimited(retryAfterSeconds: number): ApiError {
  const retryAfter = Math.max(1, Math.ceil(retryAfterSeconds));
  return new ApiError(
    ErrorCode.RateLimited,
    undefined,
    { retry_after: retryAfter, global: false },
    { 'Retry-After': String(retryAfter), 'X-RateLimit-Global': 'false' },
  );
}
