import { Injectable } from '@nestjs/common';
import { AttemptCounters } from '../../common/rate-limit/attempt-counters';
import { AppConfig } from '../../config/app.config';

/** Discord's session start limit: identifies per application per day… */
export const IDENTIFY_LIMIT = 1_000;
export const IDENTIFY_WINDOW_MS = 24 * 60 * 60_000;
/** …and one identify at a time per 5 seconds (`max_concurrency` 1). */
export const IDENTIFY_CONCURRENCY_MS = 5_000;
const MINUTE_MS = 60_000;

export interface SessionStartLimit {
  total: number;
  remaining: number;
  reset_after: number;
  max_concurrency: number;
}

/**
 * The gateway's rate limits, shared by every instance through Redis when configured
 * (AttemptCounters), per instance otherwise: bots' session start limits (GET /gateway/bot shows
 * them; Discord's protocol, always on), and — like the HTTP buckets, off with RATE_LIMITS=off —
 * identifies per user, upgrades and failed identifies per client address. Failures count against
 * the address that sent them, never against the account named.
 */
@Injectable()
export class GatewayLimits {
  constructor(
    private readonly counters: AttemptCounters,
    private readonly config: AppConfig,
  ) {}

  /** Counts a bot's identify; false when over the daily limit or within 5 s of the previous one. */
  async startBot(applicationId: string): Promise<boolean> {
    if (
      !(await this.counters.claim(
        `gw:identify-concurrency:${applicationId}`,
        IDENTIFY_CONCURRENCY_MS,
      ))
    ) {
      return false;
    }
    const { count } = await this.counters.hit(`gw:identify:${applicationId}`, IDENTIFY_WINDOW_MS);
    return count <= IDENTIFY_LIMIT;
  }

  /** Counts a user session's identify; false beyond GATEWAY_IDENTIFIES_PER_USER_PER_MINUTE. */
  async startUser(userId: string): Promise<boolean> {
    if (!this.enabled) return true;
    const { count } = await this.counters.hit(`gw:identify-user:${userId}`, MINUTE_MS);
    return count <= this.config.gateway.identifiesPerUserPerMinute;
  }

  /** Counts an upgrade from `ip`; false beyond GATEWAY_UPGRADES_PER_ADDRESS_PER_MINUTE. */
  async upgrade(ip: string): Promise<boolean> {
    if (!this.enabled) return true;
    const { count } = await this.counters.hit(`gw:upgrade:${ip}`, MINUTE_MS);
    return count <= this.config.gateway.upgradesPerAddressPerMinute;
  }

  /** An identify or resume from `ip` presented a token that is not valid. */
  async failed(ip: string): Promise<void> {
    if (!this.enabled) return;
    await this.counters.hit(`gw:identify-failed:${ip}`, MINUTE_MS);
  }

  /** Whether `ip` failed to identify too often lately (its upgrades are refused meanwhile). */
  async failingTooOften(ip: string): Promise<boolean> {
    if (!this.enabled) return false;
    const { count } = await this.counters.peek(`gw:identify-failed:${ip}`);
    return count >= this.config.gateway.failedIdentifiesPerAddressPerMinute;
  }

  private get enabled(): boolean {
    return this.config.rateLimits.enabled;
  }

  async current(applicationId: string): Promise<SessionStartLimit> {
    const { count, ttlMs } = await this.counters.peek(`gw:identify:${applicationId}`);
    return {
      total: IDENTIFY_LIMIT,
      remaining: Math.max(0, IDENTIFY_LIMIT - count),
      reset_after: count === 0 ? 0 : ttlMs,
      max_concurrency: 1,
    };
  }
}
