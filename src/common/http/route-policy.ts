import { applyDecorators, SetMetadata, type Type } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { MULTIPART_FILES_EXTENSION } from '../openapi/api-errors.decorator';
import type { ParleyRequest } from '../auth/caller';
import type { FileIntake } from './multipart';

/**
 * What the request pipeline does for a route, declared on the route (like `@Auth`) and read from
 * the matched handler — never from URL patterns, so renaming a route cannot silently change it
 * (ARCHITECTURE.md §3). Defaults suit an ordinary JSON API route.
 */
export const BODY_POLICY_METADATA = 'parley:body-policy';
export const LOG_REDACTION_METADATA = 'parley:log-redaction';
export const NOT_LOGGED_METADATA = 'parley:not-logged';
export const FILE_INTAKE_METADATA = 'parley:file-intake';

/** How a route's request body is read (body-reader.ts), after its guards have passed. */
export interface BodyPolicy {
  /**
   * `dto`: JSON or form-encoded, parsed into an object for a DTO (at most MAX_DTO_JSON_ITEMS
   * items). `foreign`: a sender's payload (webhook deliveries): the exact bytes are kept for the
   * route's owner, which checks their signature and parses them, off the event loop when large.
   * `stream`: not read at all (`@RawStream`): the handler streams the request itself.
   */
  kind: 'dto' | 'foreign' | 'stream';
  /** `default`: 1 MiB (`JSON_BODY_LIMIT`); `large`: 25 MiB (`REPOHOST_BODY_LIMIT`). */
  size: 'default' | 'large';
  /** Parse errors in the RFC 6749 shape (the OAuth2 token, revocation and introspection endpoints). */
  oauthErrors: boolean;
}

export const DEFAULT_BODY_POLICY: BodyPolicy = { kind: 'dto', size: 'default', oauthErrors: false };

/** A route whose body is a foreign delivery: kept as bytes (see BodyPolicy.kind). */
export const ForeignPayload = (
  options: { size?: BodyPolicy['size'] } = {},
): MethodDecorator & ClassDecorator =>
  SetMetadata(BODY_POLICY_METADATA, {
    ...DEFAULT_BODY_POLICY,
    kind: 'foreign',
    size: options.size ?? 'default',
  } satisfies BodyPolicy);

/**
 * A route whose body is a file's bytes that its handler pipes into storage as they arrive (an
 * upload URL's PUT, up to ATTACHMENT_UPLOAD_MAX_BYTES): the body reader leaves the request
 * untouched — on Fastify too, whose own parsers are replaced by one that reads nothing
 * (fastify.platform.ts) — so the handler checks its credential, the upload's state and the
 * declared length before it reads a byte, and reads it once, never held whole.
 */
export const RawStream = (): MethodDecorator & ClassDecorator =>
  SetMetadata(BODY_POLICY_METADATA, {
    ...DEFAULT_BODY_POLICY,
    kind: 'stream',
  } satisfies BodyPolicy);

/** An RFC 6749 endpoint: even a body that does not parse is answered `invalid_request`. */
export const OAuthErrorShape = (): MethodDecorator & ClassDecorator =>
  SetMetadata(BODY_POLICY_METADATA, {
    ...DEFAULT_BODY_POLICY,
    oauthErrors: true,
  } satisfies BodyPolicy);

/** Which parts of a route's URL are credentials, kept out of the request log. */
export interface LogRedaction {
  /** Path parameters (by name) that are credentials, e.g. a webhook's `token`. */
  params: readonly string[];
  /** Query parameters that are credentials, e.g. a signed link's `signature`. */
  query: readonly string[];
}

export const NO_REDACTION: LogRedaction = { params: [], query: [] };

/**
 * Query parameter names that are never logged on any route, whatever it declares: a second line
 * of defence for a route that forgot to declare them (OAuth2 and e-mail link conventions).
 */
export const ALWAYS_REDACTED_QUERY = new Set([
  'code',
  'state',
  'token',
  'ticket',
  'signature',
  'secret',
  'password',
  'access_token',
  'refresh_token',
  'client_secret',
]);

/**
 * A route whose requests write no request log line (the health probes: a load balancer polls
 * them every few seconds). Errors they raise are still logged.
 */
export const NotLogged = (): MethodDecorator & ClassDecorator =>
  SetMetadata(NOT_LOGGED_METADATA, true);

/** Declares the route's credential-bearing path and query parameters (see LogRedaction). */
export const RedactInLogs = (redaction: Partial<LogRedaction>): MethodDecorator & ClassDecorator =>
  applyDecorators(
    SetMetadata(LOG_REDACTION_METADATA, {
      params: redaction.params ?? [],
      query: redaction.query ?? [],
    } satisfies LogRedaction),
  );

/**
 * A route that takes files as `multipart/form-data` (Discord's `payload_json` + `files[n]`): the
 * body reader opens the given intake for the request — which checks that the caller may upload
 * there, before a byte is read — and streams each file into it (multipart.ts). The route's other
 * body policy (`dto` or `foreign`) applies to `payload_json`.
 */
export const AcceptsFiles = (intake: Type<FileIntakeOpener>): MethodDecorator & ClassDecorator =>
  applyDecorators(
    SetMetadata(FILE_INTAKE_METADATA, intake),
    ApiExtension(MULTIPART_FILES_EXTENSION, true),
  );

/** Opens a route's FileIntake for one request (an injectable named by `@AcceptsFiles`). */
export interface FileIntakeOpener {
  open(req: ParleyRequest): Promise<FileIntake>;
}
