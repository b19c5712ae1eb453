import { Inject, Injectable, Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { sha256 } from '../../common/crypto/tokens';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { AppConfig } from '../../config/app.config';
import { REDIS } from '../../infra/redis/redis.module';

export const LOGIN_FAILURES_ALLOWED = 5;
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60_000;

interface Count {
  failures: number;
  /** Milliseconds until the window (counted from the first failure) closes. */
  ttlMs: number;
}

/**
 * Per-e-mail brute-force brake: after 5 failed logins for one address within 15 minutes (counted
 * from the first failure) the address answers 429 until the window closes, whatever the password,
 * so a guesser spread over many IPs is still slowed. A successful login clears the count.
 * Counts live in Redis when configured (shared by every instance), otherwise in memory.
 * Off with RATE_LIMITS=off (load benchmarks only), like every other limit.
 */
@Injectable()
export class LoginAttemptsLimiter {
  private readonly memory = new Map<string, { failures: number; expiresAt: number }>();
  private readonly logger = new Logger(LoginAttemptsLimiter.name);

  constructor(
    @Inject(REDIS) private readonly redis: Redis | null,
    private readonly config: AppConfig,
  ) {}

  private key(email: string): string {
    return `login-failures:${sha256(email.trim().toLowerCase()).toString('hex')}`;
  }

  /** Throws 429 while the address is blocked. */
  async check(email: string): Promise<void> {
    if (!this.config.rateLimits.enabled) return;
    const { failures, ttlMs } = await this.read(this.key(email));
    if (failures >= LOGIN_FAILURES_ALLOWED) throw rateLimited(ttlMs / 1000);
  }

  async recordFailure(email: string): Promise<void> {
    if (!this.config.rateLimits.enabled) return;
    const key = this.key(email);
    if (this.redis) {
      try {
        // SET NX starts the window at the first failure; INCR counts (any Redis version).
        await this.redis.multi().set(key, 0, 'PX', LOGIN_FAILURE_WINDOW_MS, 'NX').incr(key).exec();
        return;
      } catch (err) {
        this.redisFailed(err);
      }
    }
    const now = Date.now();
    const entry = this.memory.get(key);
    if (!entry || entry.expiresAt <= now) {
      if (this.memory.size > 100_000) this.sweep(now);
      this.memory.set(key, { failures: 1, expiresAt: now + LOGIN_FAILURE_WINDOW_MS });
    } else {
      entry.failures += 1;
    }
  }

  async recordSuccess(email: string): Promise<void> {
    if (!this.config.rateLimits.enabled) return;
    const key = this.key(email);
    this.memory.delete(key);
    if (this.redis) await this.redis.del(key).catch((err: unknown) => this.redisFailed(err));
  }

  // When Redis cannot answer, count in this process rather than failing logins with a 500.
  private redisFailed(err: unknown): void {
    this.logger.warn(`login-failure counter falls back to memory: ${(err as Error).message}`);
  }

  private async read(key: string): Promise<Count> {
    if (this.redis) {
      try {
        const res = await this.redis.multi().get(key).pttl(key).exec();
        const failures = Number(res?.[0]?.[1] ?? 0);
        const ttlMs = Number(res?.[1]?.[1] ?? 0);
        return { failures: Number.isFinite(failures) ? failures : 0, ttlMs: Math.max(0, ttlMs) };
      } catch (err) {
        this.redisFailed(err);
      }
    }
    const entry = this.memory.get(key);
    const now = Date.now();
    if (!entry || entry.expiresAt <= now) return { failures: 0, ttlMs: 0 };
    return { failures: entry.failures, ttlMs: entry.expiresAt - now };
  }

  private sweep(now: number): void {
    for (const [k, v] of this.memory) if (v.expiresAt <= now) this.memory.delete(k);
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
