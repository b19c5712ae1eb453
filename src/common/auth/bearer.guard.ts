import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import type { AuthKind, ResolvedAuthOptions } from './auth.metadata';
import { AUTH_METADATA } from './auth.metadata';
import type { Caller, ParleyRequest } from './caller';

const KIND_OF: Record<Caller['kind'], AuthKind | null> = {
  session: 'user',
  bearer: 'bearer',
  bot: 'bot',
  admin: null,
};

/** Checks that the (already resolved) caller is of an allowed kind and carries the required scopes. */
@Injectable()
export class BearerGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const opts = this.reflector.getAllAndOverride<ResolvedAuthOptions>(AUTH_METADATA, [
      context.getHandler(),
      context.getClass(),
    ]);
    const caller = context.switchToHttp().getRequest<ParleyRequest>().caller;
    if (!caller) throw new ApiError(ErrorCode.Unauthorized);
    const kind = KIND_OF[caller.kind];
    if (!kind || !opts.kinds.includes(kind)) throw new ApiError(ErrorCode.AccessDenied);
    if (caller.kind === 'bearer') {
      const missing = opts.scopes.filter((s) => !caller.scopes.includes(s));
      if (missing.length > 0) {
        throw new ApiError(ErrorCode.MissingOauthScope, undefined, { missing_scopes: missing });
      }
    }
    return true;
  }
}
