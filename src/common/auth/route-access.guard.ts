import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import type { AuthKind, ResolvedAuthOptions } from './auth.metadata';
import type { Caller, ParleyRequest } from './caller';
import { RouteCredentials } from './route-credential';

const KIND_OF: Record<Caller['kind'], AuthKind | null> = {
  session: 'user',
  bearer: 'bearer',
  bot: 'bot',
  admin: null,
};

export function hasAcl(acls: readonly string[], required: string): boolean {
  return acls.includes('*') || acls.includes(required);
}

/**
 * User, bot and OAuth2 routes: the (already resolved) caller is of an allowed kind (401 without
 * one, 403 `ACCESS_DENIED` for another kind) and a bearer token carries the required scopes (403
 * `MISSING_OAUTH_SCOPE`).
 */
function checkCaller(opts: ResolvedAuthOptions, caller: Caller | undefined): void {
  if (!caller) throw new ApiError(ErrorCode.Unauthorized);
  const kind = KIND_OF[caller.kind];
  if (!kind || !opts.kinds.includes(kind)) throw new ApiError(ErrorCode.AccessDenied);
  if (caller.kind === 'bearer') {
    const missing = opts.scopes.filter((s) => !caller.scopes.includes(s));
    if (missing.length > 0) {
      throw new ApiError(ErrorCode.MissingOauthScope, undefined, { missing_scopes: missing });
    }
  }
}

/**
 * Admin routes: an admin API key must be present (401 otherwise, whatever other credential was
 * sent) and hold the route's ACL, or one of its ACLs when it names several (403 `MISSING_ACL`).
 */
function checkAdmin(opts: ResolvedAuthOptions, caller: Caller | undefined): void {
  // A user, bot or OAuth2 credential is no admin credential at all: 401, like none.
  if (caller?.kind !== 'admin') throw new ApiError(ErrorCode.Unauthorized);
  const required = opts.acls;
  if (required.length > 0 && !required.some((acl) => hasAcl(caller.acls, acl))) {
    throw new ApiError(
      ErrorCode.MissingAcl,
      undefined,
      // Several ACLs: any one of them admits the key (required_acl names the first).
      required.length === 1
        ? { required_acl: required[0] }
        : { required_acl: required[0], required_acls: required },
    );
  }
}

/**
 * Third global guard (after the caller guard and the rate limiter, before the body reader): what
 * `@Auth` and the route credentials declare — the caller's kind, scopes or admin ACL, and a valid
 * route credential (a webhook token, an OAuth2 client's Basic credentials). Global rather than
 * per-route guards, so every check is done before the body is read (route guards would run after
 * the global body reader).
 */
@Injectable()
export class RouteAccessGuard implements CanActivate {
  constructor(private readonly credentials: RouteCredentials) {}

  canActivate(context: ExecutionContext): boolean {
    this.check(context.switchToHttp().getRequest<ParleyRequest>());
    return true;
  }

  /** Throws the 401/403 (or the route credential's refusal) the request is answered with. */
  check(req: ParleyRequest): void {
    const policy = req.routePolicy!;
    if (policy.auth) {
      if (policy.auth.kinds.includes('admin')) checkAdmin(policy.auth, req.caller);
      else checkCaller(policy.auth, req.caller);
    }
    const credential = req.routeCredential;
    if (credential && credential.value === null) {
      throw this.credentials.resolver(credential.name).refusal();
    }
  }
}
