import { Injectable } from '@nestjs/common';
import { sha256 } from '../../common/crypto/tokens';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { AttemptCounters } from '../../common/rate-limit/attempt-counters';
import { AppConfig } from '../../config/app.config';

/** Wrong passwords for one account from one address before that address is refused. */
export const LOGIN_FAILURES_ALLOWED = 5;
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60_000;
/** Wrong passwords for one account from all addresses before logins to it are spaced out. */
export const ACCOUNT_FAILURES_BEFORE_SLOWDOWN = 20;
/** While slowed down, one attempt per this long from addresses the account never logged in from. */
export const ACCOUNT_SLOWDOWN_MS = 2_000;

/**
 * The brute-force brake of password logins. Failed attempts count against the caller, never
 * against the account's owner:
 * - per account **and address**: 5 wrong passwords within 15 minutes (from the first) and that
 *   address is refused for that account (429) until the window closes — whatever it sends;
 * - per account, all addresses: past 20 wrong passwords within 15 minutes, attempts from
 *   addresses the account has never logged in from are spaced out to one per 2 s (429 with
 *   `retry_after` ≤ 2): a guesser spread over many addresses is slowed to ~450 guesses per
 *   window, while the owner — at an address they logged in from before, or anywhere after a short
 *   wait — is never locked out for minutes.
 * A successful login clears its address's count. Off with RATE_LIMITS=off (load benchmarks).
 */
@Injectable()
export class LoginAttemptsLimiter {
  constructor(
    private readonly counters: AttemptCounters,
    private readonly config: AppConfig,
  ) {}

  private keys(email: string, ip: string | null | undefined) {
    const account = sha256(email.trim().toLowerCase()).toString('hex');
    return {
      pair: `login-failures:${account}:${ip ?? 'unknown'}`,
      account: `login-failures:${account}`,
      slot: `login-slot:${account}`,
    };
  }

  /**
   * Throws 429 when this address may not try this account now. `knownAddress`: the account has
   * logged in from it before (others' failures never slow it down).
   */
  async check(email: string, ip: string | null | undefined, knownAddress: boolean): Promise<void> {
    if (!this.config.rateLimits.enabled) return;
    const keys = this.keys(email, ip);
    const pair = await this.counters.peek(keys.pair);
    if (pair.count >= LOGIN_FAILURES_ALLOWED) throw rateLimited(pair.ttlMs / 1000);
    if (knownAddress) return;
    const account = await this.counters.peek(keys.account);
    if (
      account.count >= ACCOUNT_FAILURES_BEFORE_SLOWDOWN &&
      !(await this.counters.claim(keys.slot, ACCOUNT_SLOWDOWN_MS))
    ) {
      throw rateLimited(ACCOUNT_SLOWDOWN_MS / 1000);
    }
  }

  async recordFailure(email: string, ip: string | null | undefined): Promise<void> {
    if (!this.config.rateLimits.enabled) return;
    const keys = this.keys(email, ip);
    await this.counters.hit(keys.pair, LOGIN_FAILURE_WINDOW_MS);
    await this.counters.hit(keys.account, LOGIN_FAILURE_WINDOW_MS);
  }

  async recordSuccess(email: string, ip: string | null | undefined): Promise<void> {
    if (!this.config.rateLimits.enabled) return;
    await this.counters.clear(this.keys(email, ip).pair);
  }
}

export function rateLimited(retryAfterSeconds: number): ApiError {
  const retryAfter = Math.max(1, Math.ceil(retryAfterSeconds));
  return new ApiError(
    ErrorCode.RateLimited,
    undefined,
    { retry_after: retryAfter, global: false },
    { 'Retry-After': String(retryAfter), 'X-RateLimit-Scope': 'user' },
  );
}
