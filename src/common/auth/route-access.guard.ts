import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AdminAclGuard } from './admin-acl.guard';
import { BearerGuard } from './bearer.guard';
import type { ParleyRequest } from './caller';
import { RouteCredentials } from './route-credential';

/**
 * Third global guard (after the caller guard and the rate limiter, before the body reader): what
 * `@Auth` and the route credentials declare — the caller's kind and scopes (`BearerGuard`) or admin
 * ACL (`AdminAclGuard`), the design card's two guards, and a valid route credential (a webhook
 * token, an OAuth2 client's Basic credentials). Global rather than per-route guards, so every
 * check is done before the body is read (route guards would run after the global body reader).
 */
@Injectable()
export class RouteAccessGuard implements CanActivate {
  constructor(
    private readonly adminAcl: AdminAclGuard,
    private readonly bearer: BearerGuard,
    private readonly credentials: RouteCredentials,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    this.check(context.switchToHttp().getRequest<ParleyRequest>());
    return true;
  }

  /** Throws the 401/403 (or the route credential's refusal) the request is answered with. */
  check(req: ParleyRequest): void {
    const policy = req.routePolicy!;
    if (policy.auth) {
      if (policy.auth.kinds.includes('admin')) this.adminAcl.check(policy.auth, req.caller);
      else this.bearer.check(policy.auth, req.caller);
    }
    const credential = req.routeCredential;
    if (credential && credential.value === null) {
      throw this.credentials.resolver(credential.name).refusal();
    }
  }
}
