import { Injectable } from '@nestjs/common';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import type { ResolvedAuthOptions } from './auth.metadata';
import type { Caller } from './caller';

export function hasAcl(acls: readonly string[], required: string): boolean {
  return acls.includes('*') || acls.includes(required);
}

/**
 * The design card's `AdminAclGuard` (DESIGN.md §3): admin routes (`@Auth({ kind: 'admin', acl })`,
 * `@AdminRoute`). An admin API key must be present (401 `UNAUTHORIZED` otherwise, whatever other
 * credential was sent) and hold the route's ACL, or one of its ACLs when it names several (403
 * `MISSING_ACL`).
 *
 * A step of the one global guard, not a guard of its own: `RouteAccessGuard` calls it for routes
 * that take an admin key, inside `RequestGate`, after the caller guard and the rate limiter and
 * before the body is read (ARCHITECTURE.md §3). Never `@UseGuards` it: a route guard runs after the
 * body reader.
 */
@Injectable()
export class AdminAclGuard {
  /** Throws the 401/403 the request is answered with. */
  check(auth: ResolvedAuthOptions, caller: Caller | undefined): void {
    // A user, bot or OAuth2 credential is no admin credential at all: 401, like none.
    if (caller?.kind !== 'admin') throw new ApiError(ErrorCode.Unauthorized);
    const required = auth.acls;
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
}
