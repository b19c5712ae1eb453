import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
} from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import { ErrorCode } from '../errors/error-code';
import { ApiErrors } from '../openapi/api-errors.decorator';
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
    // Checked before the body is read by the global RouteAccessGuard: AdminAclGuard for admin
    // routes, BearerGuard for the others (admin-acl.guard.ts, bearer.guard.ts).
    SetMetadata(AUTH_METADATA, resolved),
    ...kinds.map((k) => ApiSecurity(SECURITY[k])),
    // 401 UNAUTHORIZED follows from the security requirement (finishOpenApiDocument).
    ApiErrors(...forbidden(resolved)),
  );
}

const USER_KINDS: readonly AuthKind[] = ['user', 'bot', 'bearer'];

/** The 403s the access checks answer for these options (admin-acl.guard.ts, bearer.guard.ts). */
function forbidden(opts: ResolvedAuthOptions): ErrorCode[] {
  if (opts.kinds.includes('admin')) return [ErrorCode.MissingAcl];
  const codes: ErrorCode[] = [];
  if (USER_KINDS.some((k) => !opts.kinds.includes(k))) codes.push(ErrorCode.AccessDenied);
  if (opts.kinds.includes('bearer') && opts.scopes.length > 0)
    codes.push(ErrorCode.MissingOauthScope);
  return codes;
}

/** Marks a route as callable without credentials. Every route has `@Auth` or `@Public`. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_METADATA, true);

/** The authenticated caller (the guard guarantees it is present on `@Auth` routes). */
export const CurrentCaller = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): Caller | undefined =>
    ctx.switchToHttp().getRequest<ParleyRequest>().caller,
);
