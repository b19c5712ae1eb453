import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerOptions,
  type ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import { AppConfig } from '../../config/app.config';
import type { HttpResponse } from '../http/http-types';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import { Metrics } from '../../infra/metrics/metrics';
import type { ParleyRequest } from '../auth/caller';
import type { BucketTracker } from '../../config/rate-limit.config';

/**
 * @nestjs/throttler with ARCHITECTURE.md §5's wire format, Discord's headers: `X-RateLimit-Reset` as
 * an epoch, `-Reset-After` in seconds, `-Bucket`; on 429 `{code, message, retry_after, global}` with
 * `Retry-After`, `X-RateLimit-Scope` and, for the global limit only, `X-RateLimit-Global: true`. Which buckets
 * apply to a route is decided by each throttler's `skipIf` (see rate-limit.module.ts).
 */
@Injectable()
export class ParleyThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {
    super(options, storage, reflector);
  }

  /** Per route handler: the throttlers (buckets) that apply to it, decided once. */
  private readonly plans = new WeakMap<object, ThrottlerOptions[]>();

  /**
   * The base class asks every throttler (one per bucket) on every request whether it applies, with
   * several metadata lookups each. Which buckets apply depends on the route only (its
   * `@RateLimit` metadata), so that is decided once per handler; then only those buckets count.
   */
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    // RATE_LIMITS=off exists for load benchmarks only.
    if (!this.config.rateLimits.enabled) return true;
    const handler = context.getHandler();
    let plan = this.plans.get(handler);
    if (!plan) {
      plan = this.throttlers.filter((t) => !t.skipIf?.(context));
      this.plans.set(handler, plan);
    }
    for (const throttler of plan) {
      const ttl = throttler.ttl as number;
      await this.handleRequest({
        context,
        limit: throttler.limit as number,
        ttl,
        throttler,
        blockDuration: (throttler.blockDuration as number | undefined) ?? ttl,
        getTracker: throttler.getTracker ?? this.commonOptions.getTracker!,
        generateKey: throttler.generateKey ?? this.commonOptions.generateKey!,
      });
    }
    return true;
  }

  protected override async handleRequest(props: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, throttler, blockDuration, getTracker, generateKey } = props;
    const { req, res } = this.getRequestResponse(context) as {
      req: ParleyRequest;
      res: HttpResponse;
    };
    const name = throttler.name ?? 'global';
    const tracker = await getTracker(req, context);
    const key = generateKey(context, tracker, name);
    const record = await this.storageService.increment(key, ttl, limit, blockDuration, name);
    // Each bucket overwrites the headers, and the base class orders the throttlers shortest
    // window first: the longest window counted has the last word (with the default table the
    // route's own bucket, if any, over `global`'s 1 s). X-RateLimit-Bucket names it.
    const resetAfter = Math.max(0, record.timeToExpire);
    res.header('X-RateLimit-Limit', String(limit));
    res.header('X-RateLimit-Remaining', String(Math.max(0, limit - record.totalHits)));
    res.header('X-RateLimit-Reset', String(Math.ceil(Date.now() / 1000) + resetAfter));
    res.header('X-RateLimit-Reset-After', String(resetAfter));
    res.header('X-RateLimit-Bucket', name);
    if (record.isBlocked) {
      this.metrics.rateLimited(name);
      const retryAfter = Math.max(1, record.timeToBlockExpire);
      const global = name === 'global';
      res.header('X-RateLimit-Remaining', '0');
      res.header('X-RateLimit-Reset', String(Math.ceil(Date.now() / 1000) + retryAfter));
      res.header('X-RateLimit-Reset-After', String(retryAfter));
      // As Discord: `X-RateLimit-Global` only when the global limit was hit; the scope on a 429.
      const headers: Record<string, string> = {
        'Retry-After': String(retryAfter),
        'X-RateLimit-Scope': global ? 'global' : scopeOf(throttler),
      };
      if (global) headers['X-RateLimit-Global'] = 'true';
      throw new ApiError(
        ErrorCode.RateLimited,
        undefined,
        { retry_after: retryAfter, global },
        headers,
      );
    }
    return true;
  }

  // Unreachable: only the base class's handleRequest calls it, and handleRequest is overridden
  // above. Should a new base version call it, the answer is still a RATE_LIMITED envelope
  // (without the headers handleRequest sets).
  protected override async throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw new ApiError(ErrorCode.RateLimited, undefined, {
      retry_after: detail.timeToBlockExpire,
      global: false,
    });
  }
}

/**
 * Discord's `X-RateLimit-Scope` of a bucket: `user` when the caller's own requests filled it,
 * `shared` when it is a resource's (a webhook's execute bucket counts every sender).
 */
function scopeOf(throttler: ThrottlerOptions): 'user' | 'shared' {
  return (throttler as { tracker?: BucketTracker }).tracker === 'webhook' ? 'shared' : 'user';
}

/** Builds the tracker of a bucket: who is being counted. */
export function trackerFor(kind: BucketTracker, req: ParleyRequest): string {
  const caller = req.caller;
  switch (kind) {
    case 'identity':
      return caller ? `user:${caller.userId}` : `ip:${req.ip ?? 'unknown'}`;
    case 'webhook': {
      // Only a delivery whose token matched spends its webhook's budget; a wrong token (the id
      // is public: every message shows it) is counted against the address that sent it.
      // An interaction's token on the execute route (a follow-up) spends that interaction's.
      const webhook = req.routeCredential?.value as
        { webhookId?: string; id?: string; applicationId?: string } | null | undefined;
      if (webhook?.webhookId) return `webhook:${webhook.webhookId}`;
      if (webhook?.applicationId && webhook.id) return `interaction:${webhook.id}`;
      return `ip:${req.ip ?? 'unknown'}`;
    }
    case 'admin-key':
      return caller?.kind === 'admin' ? `admin-key:${caller.keyId}` : `ip:${req.ip ?? 'unknown'}`;
  }
}
