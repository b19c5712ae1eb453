import type { UploadedFiles } from '../http/multipart';
import type { HttpRequest } from '../http/http-types';
import type { RoutePolicy } from '../http/route-policies';
import type { ResolvedRouteCredential } from './route-credential';

/** A user logged in with a session token. */
export interface SessionCaller {
  kind: 'session';
  userId: string;
  sessionId: string;
}

/** An OAuth2 access token (RFC 6750 bearer) acting for a user within its scopes. */
export interface BearerCaller {
  kind: 'bearer';
  userId: string;
  applicationId: string;
  tokenId: string;
  scopes: string[];
  expiresAt: Date;
}

/** An application's bot user, authenticated with `Bot <application_id>.<secret>`. */
export interface BotCaller {
  kind: 'bot';
  userId: string;
  applicationId: string;
  /**
   * Whether its owner enabled message content (GATEWAY_MESSAGE_CONTENT[_LIMITED]): without it a
   * bot reads other users' messages without their content, on REST as on the gateway (Discord's
   * rule). Absent: true (callers made before the flags were read, e.g. in unit tests).
   */
  readsContent?: boolean;
}

/** An admin API key (`Admin adm_<key_id>_<secret>`), only on /v1/admin/*. */
export interface AdminCaller {
  kind: 'admin';
  userId: string;
  keyId: string;
  /** The key's ACLs narrowed to what its owner holds (`*` = all). */
  acls: string[];
  /** Null = the key never expires. */
  expiresAt: Date | null;
}

export type Caller = SessionCaller | BearerCaller | BotCaller | AdminCaller;
export type CallerKind = Caller['kind'];

/** The request as Parley's guards and handlers see it. `caller` is undefined for anonymous requests. */
export interface ParleyRequest extends HttpRequest {
  caller?: Caller;
  /** The matched route's policy, set by the caller guard (absent before it ran). */
  routePolicy?: RoutePolicy;
  /** On routes that take a route credential (a webhook token, OAuth2 client Basic): what it resolved to. */
  routeCredential?: ResolvedRouteCredential;
  /** On `@ForeignPayload` routes: the body as received (body-reader.ts). */
  payload?: ReceivedPayload | null;
  /** On `@AcceptsFiles` routes sent a multipart body: the files it stored (body-reader.ts). */
  uploads?: UploadedFiles;
}

/** A foreign delivery's body: its bytes, for the route's owner to verify and parse. */
export interface ReceivedPayload {
  bytes: Buffer;
  /** `json` or `form` (the only media types read on such routes). */
  mediaType: 'json' | 'form';
  /** The declared charset, lower-cased; null when none was declared. */
  charset: string | null;
}
