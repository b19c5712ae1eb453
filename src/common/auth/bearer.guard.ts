import { Injectable } from '@nestjs/common';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import type { AuthKind, ResolvedAuthOptions } from './auth.metadata';
import type { Caller } from './caller';

/** The `@Auth` kind each resolved caller is (an admin key is none of them). */
const KIND_OF: Record<Caller['kind'], AuthKind | null> = {
  session: 'user',
  bearer: 'bearer',
  bot: 'bot',
  admin: null,
};

/**
 * The design card's `BearerGuard` (DESIGN.md §3): user, bot and OAuth2 routes (`@Auth({ kind:
 * 'user' | 'bot' | 'bearer', scopes? })`). The (already resolved) caller is of an allowed kind (401
 * `UNAUTHORIZED` without one, 403 `ACCESS_DENIED` for another kind) and an OAuth2 access token
 * carries the route's scopes (403 `MISSING_OAUTH_SCOPE`, naming the missing ones).
 *
 * A step of the one global guard, not a guard of its own: `RouteAccessGuard` calls it for every
 * `@Auth` route that takes no admin key, inside `RequestGate`, after the caller guard and the rate
 * limiter and before the body is read (ARCHITECTURE.md §3). Never `@UseGuards` it: a route guard
 * runs after the body reader.
 */
@Injectable()
export class BearerGuard {
  /** Throws the 401/403 the request is answered with. */
  check(auth: ResolvedAuthOptions, caller: Caller | undefined): void {
    if (!caller) throw new ApiError(ErrorCode.Unauthorized);
    const kind = KIND_OF[caller.kind];
    if (!kind || !auth.kinds.includes(kind)) throw new ApiError(ErrorCode.AccessDenied);
    if (caller.kind === 'bearer') {
      const missing = auth.scopes.filter((s) => !caller.scopes.includes(s));
      if (missing.length > 0) {
        throw new ApiError(ErrorCode.MissingOauthScope, undefined, { missing_scopes: missing });
      }
    }
  }
}
