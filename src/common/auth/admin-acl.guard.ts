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

/** Admin routes: an admin API key must be present and hold the route's ACL. */
@Injectable()
export class AdminAclGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const opts = this.reflector.getAllAndOverride<ResolvedAuthOptions>(AUTH_METADATA, [
      context.getHandler(),
      context.getClass(),
    ]);
    const caller = context.switchToHttp().getRequest<ParleyRequest>().caller;
    if (!caller) throw new ApiError(ErrorCode.Unauthorized);
    if (caller.kind !== 'admin') throw new ApiError(ErrorCode.AccessDenied);
    if (opts.acl && !hasAcl(caller.acls, opts.acl)) {
      throw new ApiError(ErrorCode.MissingAcl, undefined, { required_acl: opts.acl });
    }
    return true;
  }
}
