import { Injectable } from '@nestjs/common';
import { AttemptCounters } from '../../common/rate-limit/attempt-counters';

/** Discord's session start limit: identifies per application per day… */
export const IDENTIFY_LIMIT = 1_000;
export const IDENTIFY_WINDOW_MS = 24 * 60 * 60_000;
/** …and one identify at a time per 5 seconds (`max_concurrency` 1). */
export const IDENTIFY_CONCURRENCY_MS = 5_000;

export interface SessionStartLimit {
  total: number;
  remaining: number;
  reset_after: number;
  max_concurrency: number;
}

/**
 * Enforces and reports bots' session start limits (GET /gateway/bot shows them) — shared by
 * every instance through Redis when configured (AttemptCounters), per instance otherwise.
 */
@Injectable()
export class IdentifyLimits {
  constructor(private readonly counters: AttemptCounters) {}

  /** Counts an identify; false when over the daily limit or within 5 s of the previous one. */
  async start(applicationId: string): Promise<boolean> {
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
