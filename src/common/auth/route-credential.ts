import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  SetMetadata,
} from '@nestjs/common';
import type { ApiError } from '../errors/api-error';
import type { OAuthError } from '../errors/oauth-error';
import { RedactInLogs } from '../http/route-policy';
import { Public } from './auth.decorator';
import type { ParleyRequest } from './caller';

export const ROUTE_CREDENTIAL_METADATA = 'parley:route-credential';

/**
 * A credential a route takes other than an `Authorization` session/token: a webhook's token in
 * its path, an OAuth2 client's HTTP Basic credentials. The module that owns it registers a
 * resolver; the caller guard resolves it before the rate limiter and before the body is read, so
 * a wrong credential costs one cached lookup, counts against the caller's address, and never
 * makes the server read what was sent with it.
 */
export interface RouteCredentialResolver<T = unknown> {
  /**
   * What the request presents: the credential it stands for, or null when it presents a wrong
   * one (or none where one is required) — the route is then refused with `refusal()`.
   */
  resolve(req: ParleyRequest): Promise<T | null>;
  /** What a request with a wrong credential is answered (e.g. 404 UNKNOWN_WEBHOOK). */
  refusal(): ApiError | OAuthError;
}

/** What the caller guard found for a route's credential. */
export interface ResolvedRouteCredential {
  name: string;
  /** Null: the request presented no valid credential. */
  value: unknown;
}

/** The registry of route-credential resolvers, by name (`webhook`, `oauth2-client`). */
@Injectable()
export class RouteCredentials {
  private readonly resolvers = new Map<string, RouteCredentialResolver>();

  register(name: string, resolver: RouteCredentialResolver): void {
    if (this.resolvers.has(name)) throw new Error(`a resolver for "${name}" is already registered`);
    this.resolvers.set(name, resolver);
  }

  resolver(name: string): RouteCredentialResolver {
    const resolver = this.resolvers.get(name);
    if (!resolver) throw new Error(`no route-credential resolver named "${name}"`);
    return resolver;
  }
}

/** A route that also takes the route credential `name` (the caller guard resolves it). */
export const RouteCredential = (name: string): MethodDecorator & ClassDecorator =>
  SetMetadata(ROUTE_CREDENTIAL_METADATA, name);

/**
 * A public route authenticated by a credential in its path: `name` is the registered resolver,
 * `param` the path parameter holding the secret part (kept out of the request log).
 */
export const PathCredential = (name: string, param: string): MethodDecorator & ClassDecorator =>
  applyDecorators(Public(), RouteCredential(name), RedactInLogs({ params: [param] }));

/** Handler parameter: what the route's credential resolved to (the access guard ensures one). */
export const CurrentRouteCredential = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): unknown =>
    ctx.switchToHttp().getRequest<ParleyRequest>().routeCredential?.value,
);
