import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import { AUTH_METADATA, PUBLIC_METADATA } from './auth.metadata';
import { isAdminPath, parseAuthorization } from './authorization-header';
import type { ParleyRequest } from './caller';
import { CredentialResolvers } from './credential-resolvers';

/**
 * First global guard: authenticates the `Authorization` header through Passport (the strategy of
 * its scheme; a cache hit or one indexed lookup) into `req.caller`,
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

  /** Per route handler: whether it is public or has @Auth (metadata is fixed at boot). */
  private readonly declared = new WeakMap<object, boolean>();

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const handler = context.getHandler();
    let declared = this.declared.get(handler);
    if (declared === undefined) {
      const targets = [handler, context.getClass()];
      declared =
        !!this.reflector.getAllAndOverride<boolean>(PUBLIC_METADATA, targets) ||
        !!this.reflector.getAllAndOverride<unknown>(AUTH_METADATA, targets);
      this.declared.set(handler, declared);
    }
    if (!declared) {
      this.logger.error(
        `route ${context.getClass().name}.${context.getHandler().name} has neither @Auth nor @Public`,
      );
      throw new ApiError(ErrorCode.Unauthorized);
    }
    const http = context.switchToHttp();
    const req = http.getRequest<ParleyRequest>();
    const parsed = parseAuthorization(req.headers.authorization, isAdminPath(req.url));
    if (parsed) {
      const res = http.getResponse<FastifyReply>();
      req.caller =
        (await this.resolvers.resolve(parsed.scheme, parsed.credential, req, res)) ?? undefined;
    }
    return true;
  }
}
