import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import { AUTH_METADATA, PUBLIC_METADATA } from './auth.decorator';
import { isAdminPath, parseAuthorization } from './authorization-header';
import type { ParleyRequest } from './caller';
import { CredentialResolvers } from './credential-resolvers';

/**
 * First global guard: resolves the `Authorization` header into `req.caller` (one indexed lookup),
 * so the rate limiter can track by user id. It does not reject bad credentials — those make the
 * request anonymous and the route's guard answers 401 — but it does enforce default deny: a
 * route with neither `@Auth` nor `@Public` is refused.
 */
@Injectable()
export class CallerGuard implements CanActivate {
  private readonly logger = new Logger(CallerGuard.name);

  constructor(
    private readonly reflector: Reflector,
    private readonly resolvers: CredentialResolvers,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    const isPublic = this.reflector.getAllAndOverride<boolean>(PUBLIC_METADATA, targets);
    const auth = this.reflector.getAllAndOverride<unknown>(AUTH_METADATA, targets);
    if (!isPublic && !auth) {
      this.logger.error(
        `route ${context.getClass().name}.${context.getHandler().name} has neither @Auth nor @Public`,
      );
      throw new ApiError(ErrorCode.Unauthorized);
    }
    const req = context.switchToHttp().getRequest<ParleyRequest>();
    const parsed = parseAuthorization(req.headers.authorization, isAdminPath(req.path));
    if (parsed)
      req.caller =
        (await this.resolvers.resolve(parsed.scheme, parsed.credential, req)) ?? undefined;
    return true;
  }
}
