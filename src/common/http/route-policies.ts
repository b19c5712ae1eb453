import { ExecutionContext, Injectable, type Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AUTH_METADATA, PUBLIC_METADATA, type ResolvedAuthOptions } from '../auth/auth.metadata';
import { ROUTE_CREDENTIAL_METADATA } from '../auth/route-credential';
import {
  BODY_POLICY_METADATA,
  DEFAULT_BODY_POLICY,
  FILE_INTAKE_METADATA,
  type FileIntakeOpener,
  LOG_REDACTION_METADATA,
  NO_REDACTION,
  NOT_LOGGED_METADATA,
  type BodyPolicy,
  type LogRedaction,
} from './route-policy';

/** Everything the pipeline needs to know about the matched route, read once per handler. */
export interface RoutePolicy {
  /** `@Auth` or `@Public` is present (default deny refuses the others). */
  declared: boolean;
  /** Who may call it (`@Auth`); null on public routes. */
  auth: ResolvedAuthOptions | null;
  /** Only routes that take admin keys resolve `Authorization: Admin …` (ARCHITECTURE.md §4). */
  acceptsAdminKeys: boolean;
  /** The registered route credential the route takes (a webhook token, OAuth2 client), if any. */
  routeCredential: string | null;
  body: BodyPolicy;
  /** `@AcceptsFiles`: where the route's multipart files go; null: the route takes none. */
  files: Type<FileIntakeOpener> | null;
  redaction: LogRedaction;
  /** False on `@NotLogged` routes: no request log line. */
  logged: boolean;
}

/**
 * Reads the route policy of a handler from its decorators (`@Auth`, `@Public`, `@PathCredential`,
 * `@ForeignPayload`, `@OAuthErrorShape`, `@RedactInLogs`, `@NotLogged`), once per handler: metadata is fixed
 * at boot. The caller guard puts it on the request, where the body reader, the exception filter
 * and the request log find it.
 */
@Injectable()
export class RoutePolicies {
  private readonly byHandler = new WeakMap<object, RoutePolicy>();

  constructor(private readonly reflector: Reflector) {}

  of(context: ExecutionContext): RoutePolicy {
    const handler = context.getHandler();
    let policy = this.byHandler.get(handler);
    if (!policy) {
      const targets = [handler, context.getClass()];
      const get = <T>(key: string) => this.reflector.getAllAndOverride<T | undefined>(key, targets);
      const auth = get<ResolvedAuthOptions>(AUTH_METADATA);
      policy = {
        declared: !!get<boolean>(PUBLIC_METADATA) || !!auth,
        auth: auth ?? null,
        acceptsAdminKeys: auth?.kinds.includes('admin') ?? false,
        routeCredential: get<string>(ROUTE_CREDENTIAL_METADATA) ?? null,
        body: get<BodyPolicy>(BODY_POLICY_METADATA) ?? DEFAULT_BODY_POLICY,
        files: get<Type<FileIntakeOpener>>(FILE_INTAKE_METADATA) ?? null,
        redaction: get<LogRedaction>(LOG_REDACTION_METADATA) ?? NO_REDACTION,
        logged: !get<boolean>(NOT_LOGGED_METADATA),
      };
      this.byHandler.set(handler, policy);
    }
    return policy;
  }
}
