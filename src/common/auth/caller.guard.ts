import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import { RoutePolicies } from '../http/route-policies';
import { parseAuthorization } from './authorization-header';
import type { ParleyRequest } from './caller';
import { CredentialResolvers } from './credential-resolvers';
import { RouteCredentials } from './route-credential';

/**
 * First global guard: puts the matched route's policy on the request (route-policies.ts), then
 * authenticates the `Authorization` header through Passport (the strategy of its scheme; a cache
 * hit or one indexed lookup) into `req.caller`, and a route credential (a webhook's token, an
 * OAuth2 client's Basic credentials) into `req.routeCredential`, so the rate limiter can count per
 * user or per webhook. It does not reject bad credentials — those leave the request anonymous and
 * the access guard answers 401 (or the route credential's refusal) after the rate limiter has
 * counted the attempt against the caller's address — but it does enforce default deny: a route
 * with neither `@Auth` nor `@Public` is refused. Nothing of the body has been read yet (the body
 * reader is the last global guard).
 */
@Injectable()
export class CallerGuard implements CanActivate {
  private readonly logger = new Logger(CallerGuard.name);

  constructor(
    private readonly policies: RoutePolicies,
    private readonly resolvers: CredentialResolvers,
    private readonly routeCredentials: RouteCredentials,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = this.policies.of(context);
    const req = context.switchToHttp().getRequest<ParleyRequest>();
    req.routePolicy = policy;
    if (!policy.declared) {
      this.logger.error(
        `route ${context.getClass().name}.${context.getHandler().name} has neither @Auth nor @Public`,
      );
      throw new ApiError(ErrorCode.Unauthorized);
    }
    const parsed = parseAuthorization(req.headers.authorization, policy.acceptsAdminKeys);
    if (parsed) {
      req.caller = (await this.resolvers.resolve(parsed, req)) ?? undefined;
    }
    if (policy.routeCredential !== null) {
      const value = await this.routeCredentials.resolver(policy.routeCredential).resolve(req);
      req.routeCredential = { name: policy.routeCredential, value };
    }
    return true;
  }
}
