import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { ApiForbiddenResponse, ApiSecurity, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ErrorResponse } from '../http/error.response';
import { AdminAclGuard } from './admin-acl.guard';
import { BearerGuard } from './bearer.guard';
import {
  AUTH_METADATA,
  PUBLIC_METADATA,
  type AuthKind,
  type ResolvedAuthOptions,
} from './auth.metadata';
import type { Caller, ParleyRequest } from './caller';

export interface AuthOptions {
  kind: AuthKind | AuthKind[];
  /** OAuth2 scopes a bearer token must carry (all of them). */
  scopes?: string[];
  /** The admin ACL the key must hold, or several of which it must hold one (`*` grants every ACL). */
  acl?: string | string[];
}

const SECURITY: Record<AuthKind, string> = {
  user: 'sessionToken',
  bot: 'botToken',
  bearer: 'bearer',
  admin: 'adminApiKey',
};

/** Declares who may call a route: sets the guard metadata and the Swagger security at once. */
export function Auth(options: AuthOptions): MethodDecorator & ClassDecorator {
  const kinds = Array.isArray(options.kind) ? options.kind : [options.kind];
  const acls = options.acl === undefined ? [] : [options.acl].flat();
  const resolved: ResolvedAuthOptions = { kinds, scopes: options.scopes ?? [], acls };
  const admin = kinds.includes('admin');
  if (admin && kinds.length > 1) throw new Error('admin routes accept admin keys only');
  return applyDecorators(
    SetMetadata(AUTH_METADATA, resolved),
    UseGuards(admin ? AdminAclGuard : BearerGuard),
    ...kinds.map((k) => ApiSecurity(SECURITY[k])),
    ApiUnauthorizedResponse({ type: ErrorResponse, description: 'Missing or invalid credentials' }),
    ApiForbiddenResponse({
      type: ErrorResponse,
      description: 'Credentials lack the required kind, scope or ACL',
    }),
  );
}

/** Marks a route as callable without credentials. Every route has `@Auth` or `@Public`. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_METADATA, true);

/** The authenticated caller (the guard guarantees it is present on `@Auth` routes). */
export const CurrentCaller = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): Caller | undefined =>
    ctx.switchToHttp().getRequest<ParleyRequest>().caller,
);
