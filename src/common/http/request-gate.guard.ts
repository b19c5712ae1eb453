import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { CallerGuard } from '../auth/caller.guard';
import type { ParleyRequest } from '../auth/caller';
import { RouteAccessGuard } from '../auth/route-access.guard';
import { ParleyThrottlerGuard } from '../rate-limit/parley-throttler.guard';
import { BodyReader } from './body-reader';
import { HttpPlatform } from './platform/http-platform';
import { tracing } from '../../infra/tracing/trace-hooks';

/**
 * The one global guard: what every request goes through before its handler, in this order
 * (ARCHITECTURE.md §3) — who is calling (CallerGuard: the route's policy, the `Authorization`
 * header, a route credential), the rate limits (ParleyThrottlerGuard, so refused credentials are
 * counted against the caller), whether they may call this route (RouteAccessGuard: what `@Auth`
 * and the route credential declare — the design card's AdminAclGuard for admin routes, BearerGuard
 * for the others), and only then the body (BodyReader). One guard rather than
 * four: the order is written here once, no route-level guard can slip in after the body reader,
 * and each guard Nest runs costs every request a little.
 */
@Injectable()
export class RequestGate implements CanActivate {
  constructor(
    private readonly caller: CallerGuard,
    private readonly throttler: ParleyThrottlerGuard,
    private readonly access: RouteAccessGuard,
    private readonly body: BodyReader,
    private readonly platform: HttpPlatform,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ParleyRequest>();
    await this.caller.canActivate(context);
    // With tracing on, the request's span is named after its route once the route is known.
    if (tracing.hooks) tracing.hooks.routed(req.method, this.platform.routeOf(req) ?? 'unmatched');
    await this.throttler.canActivate(context);
    this.access.check(req);
    await this.body.read(req, context.switchToHttp().getResponse<object>());
    return true;
  }
}
