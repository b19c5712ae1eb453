import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import type { ResolvedAuthOptions } from './auth.metadata';
import { AUTH_METADATA } from './auth.metadata';
import type { ParleyRequest } from './caller';

export function hasAcl(acls: readonly string[], required: string): boolean {
  return acls.includes('*') || acls.includes(required);
}

/**
 * Admin routes: an admin API key must be present (401 otherwise, whatever other credential was
 * sent) and hold the route's ACL, or one of its ACLs when it names several (403 `MISSING_ACL`).
 */
@Injectable()
export class AdminAclGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const opts = this.reflector.getAllAndOverride<ResolvedAuthOptions>(AUTH_METADATA, [
      context.getHandler(),
      context.getClass(),
    ]);
    const caller = context.switchToHttp().getRequest<ParleyRequest>().caller;
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
    return true;
  }
}
