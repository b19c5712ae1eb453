import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import type { ApiError } from '../errors/api-error';
import { RedactInLogs } from '../http/route-policy';
import { Public } from './auth.decorator';
import type { ParleyRequest } from './caller';

export const PATH_CREDENTIAL_METADATA = 'parley:path-credential';

/**
 * A credential carried in the URL path instead of the `Authorization` header (a webhook's token).
 * The module that owns it registers a resolver; the caller guard resolves it before the rate
 * limiter and before the body is read, so a wrong credential costs one cached lookup, counts
 * against the caller's address, and never makes the server read what was sent with it.
 */
export interface PathCredentialResolver<T = unknown> {
  /** The credential the path parameters stand for, or null when they name none. */
  resolve(params: Readonly<Record<string, string | undefined>>): Promise<T | null>;
  /** What a request with a wrong credential is answered (e.g. 404 UNKNOWN_WEBHOOK). */
  refusal(): ApiError;
}

/** What the caller guard found for a route's path credential. */
export interface ResolvedPathCredential {
  name: string;
  /** Null: the path named no valid credential. */
  value: unknown;
}

/** The registry of path-credential resolvers, by name (`webhook`). */
@Injectable()
export class PathCredentials {
  private readonly resolvers = new Map<string, PathCredentialResolver>();

  register(name: string, resolver: PathCredentialResolver): void {
    if (this.resolvers.has(name)) throw new Error(`a resolver for "${name}" is already registered`);
    this.resolvers.set(name, resolver);
  }

  resolver(name: string): PathCredentialResolver {
    const resolver = this.resolvers.get(name);
    if (!resolver) throw new Error(`no path-credential resolver named "${name}"`);
    return resolver;
  }
}

/** Refuses the request unless the caller guard found a valid path credential. */
@Injectable()
export class PathCredentialGuard implements CanActivate {
  constructor(private readonly credentials: PathCredentials) {}

  canActivate(context: ExecutionContext): boolean {
    const resolved = context.switchToHttp().getRequest<ParleyRequest>().pathCredential;
    if (!resolved) throw new Error('PathCredentialGuard on a route without @PathCredential');
    if (resolved.value === null) throw this.credentials.resolver(resolved.name).refusal();
    return true;
  }
}

/**
 * A public route authenticated by a credential in its path: `name` is the registered resolver,
 * `param` the path parameter holding the secret part (kept out of the request log).
 */
export const PathCredential = (name: string, param: string): MethodDecorator & ClassDecorator =>
  applyDecorators(
    Public(),
    SetMetadata(PATH_CREDENTIAL_METADATA, name),
    UseGuards(PathCredentialGuard),
    RedactInLogs({ params: [param] }),
  );

/** Handler parameter: what the route's path credential resolved to (the guard ensures one). */
export const CurrentPathCredential = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): unknown =>
    ctx.switchToHttp().getRequest<ParleyRequest>().pathCredential?.value,
);
