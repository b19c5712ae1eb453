import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { QueryFailedError } from 'typeorm';
import { ApiError } from './api-error';
import { ERROR_TABLE, ErrorCode } from './error-code';
import { OAuthError } from './oauth-error';
import { databaseUnavailableError, isDatabaseUnavailable } from './database-unavailable';
import type { HttpRequest } from '../http/http-types';
import { discordErrorBody, isDiscordUrl } from '../http/discord-dialect';
import { HttpPlatform } from '../http/platform/http-platform';
import { DatabaseOutageTracker } from '../lifecycle/database-outage.tracker';

const STATUS_CODES: Record<number, ErrorCode> = {
  400: ErrorCode.BadRequest,
  401: ErrorCode.Unauthorized,
  403: ErrorCode.AccessDenied,
  404: ErrorCode.NotFound,
  405: ErrorCode.MethodNotAllowed,
  409: ErrorCode.Conflict,
  413: ErrorCode.PayloadTooLarge,
  415: ErrorCode.UnsupportedMediaType,
  429: ErrorCode.RateLimited,
  503: ErrorCode.ServiceUnavailable,
};

// body-parser error types (they reach us as plain errors with `type` and `status`).
const BODY_PARSER: Record<string, ErrorCode> = {
  'entity.parse.failed': ErrorCode.InvalidJson,
  'entity.too.large': ErrorCode.PayloadTooLarge,
  'encoding.unsupported': ErrorCode.UnsupportedMediaType,
  'charset.unsupported': ErrorCode.UnsupportedMediaType,
  'request.aborted': ErrorCode.BadRequest,
  'request.size.invalid': ErrorCode.BadRequest,
};

// PostgreSQL SQLSTATEs that mean "the input was bad", not "the server is broken".
const PG_INPUT_ERRORS = new Set([
  '22P02', // invalid_text_representation
  '22P05', // untranslatable_character (`\u0000` into jsonb)
  '22003', // numeric_value_out_of_range
  '22007', // invalid_datetime_format
  '22008', // datetime_field_overflow
  '22001', // string_data_right_truncation
  '22021', // character_not_in_repertoire (NUL in text)
  '23502', // not_null_violation (a `null` the validation let through)
  '23514', // check_violation
  '54000', // program_limit_exceeded (an index row too large)
]);

/** The envelope code of an HTTP status: its own code, a plain 400 for any other 4xx, else none. */
function codeOfStatus(status: number): ErrorCode | null {
  return STATUS_CODES[status] ?? (status >= 400 && status < 500 ? ErrorCode.BadRequest : null);
}

/** Converts anything thrown into an ApiError (or OAuthError) without leaking internals. */
export function toApiError(exception: unknown): ApiError | OAuthError | null {
  if (exception instanceof ApiError || exception instanceof OAuthError) return exception;
  const bp = exception as { type?: string; status?: unknown; expose?: unknown } | null;
  if (bp && typeof bp.type === 'string' && BODY_PARSER[bp.type]) {
    return new ApiError(BODY_PARSER[bp.type]);
  }
  // Other `http-errors` (body-parser, raw-body, the router) mark a client error with `expose` and
  // a 4xx status: a gzip body that does not inflate, too many form parameters.
  if (bp?.expose === true && typeof bp.status === 'number' && bp.status >= 400 && bp.status < 500) {
    return new ApiError(codeOfStatus(bp.status) ?? ErrorCode.BadRequest);
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const code = codeOfStatus(status);
    if (!code) return null;
    // Nest's own messages ("Cannot GET /x") are safe and useful for 404/405.
    const msg = status === 404 || status === 405 ? exception.message : undefined;
    return new ApiError(code, msg ?? ERROR_TABLE[code].message);
  }
  // PostgreSQL unreachable (down, restarting, connection dropped): 503 with Retry-After, not 500.
  if (isDatabaseUnavailable(exception)) return databaseUnavailableError();
  if (exception instanceof QueryFailedError) {
    const sqlState = (exception.driverError as { code?: string } | undefined)?.code;
    if (sqlState && PG_INPUT_ERRORS.has(sqlState)) {
      return new ApiError(
        ErrorCode.BadRequest,
        'A value in the request is out of range or malformed.',
      );
    }
    if (sqlState === '23505') return new ApiError(ErrorCode.Conflict);
  }
  return null;
}

/** An error as it goes on the wire: status, headers and envelope (HttpPlatform.sendError). */
export interface ErrorReply {
  status: number;
  headers: Record<string, string>;
  body: object;
}

/** What the reply of an error depends on in its request (both frameworks' requests have it). */
export interface ErroredRequest {
  headers: IncomingHttpHeaders;
  /** The URL as sent: Discord's paths answer in Discord's form (discord-dialect.ts). */
  originalUrl: string;
}

/**
 * The reply of an error: ARCHITECTURE.md §5's envelope (Discord's error body on Discord's
 * paths), or RFC 6749's `{error, error_description}` with `Cache-Control: no-store` for an
 * OAuthError. The request's headers decide whether a Basic challenge goes with an
 * `invalid_client` (challengeWanted).
 */
export function errorReplyOf(
  error: ApiError | OAuthError,
  req: ErroredRequest | undefined,
): ErrorReply {
  const requestHeaders = req?.headers;
  if (error instanceof OAuthError) {
    const headers: Record<string, string> = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
    for (const [k, v] of Object.entries(error.headers)) {
      if (k === 'WWW-Authenticate' && !challengeWanted(requestHeaders)) continue;
      headers[k] = v;
    }
    return {
      status: error.status,
      headers,
      body: { error: error.error, error_description: error.description },
    };
  }
  if (isDiscordUrl(req?.originalUrl)) {
    // discord.py waits out a 429 only when a proxy (`Via`) sent it; without one it takes the
    // answer for a Cloudflare ban and raises. Parley's 429 is a real rate limit: say so.
    const headers = error.status === 429 ? { ...error.headers, Via: '1.1 parley' } : error.headers;
    return { status: error.status, headers, body: discordErrorBody(error) };
  }
  return { status: error.status, headers: error.headers, body: error.toBody() };
}

/**
 * RFC 6749 §5.2 requires the `WWW-Authenticate` challenge of an `invalid_client` when the client
 * authenticated with the Authorization header, and allows it otherwise. A browser answers a Basic
 * challenge to a script's request with its own login prompt instead of handing the 401 to the
 * script (Swagger UI's "Execute" then never shows it), so a script's request (`Sec-Fetch-Mode`
 * other than `navigate`) that sent no Authorization header gets the 401 without the challenge.
 */
function challengeWanted(headers: IncomingHttpHeaders | undefined): boolean {
  if (!headers || headers.authorization !== undefined) return true;
  const mode = headers['sec-fetch-mode'];
  return mode === undefined || mode === 'navigate';
}

// Never log query parameters (they can hold hashes, e-mail addresses or tokens).
function describeForLog(exception: unknown): Record<string, unknown> {
  if (exception instanceof QueryFailedError) {
    const driver = exception.driverError as { code?: string; message?: string } | undefined;
    return {
      type: 'QueryFailedError',
      sqlState: driver?.code,
      message: driver?.message,
      stack: exception.stack,
    };
  }
  if (exception instanceof Error)
    return { type: exception.name, message: exception.message, stack: exception.stack };
  return { type: typeof exception, value: String(exception) };
}

/**
 * Renders every error as ARCHITECTURE.md §5's envelope. Unexpected ones are logged with the
 * request id; an unreachable database is not logged per request but once per outage (by the
 * tracker) — including when the credential lookup of the caller guard hit it.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');

  constructor(
    private readonly outage: DatabaseOutageTracker,
    private readonly platform: HttpPlatform,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<HttpRequest | undefined>();
    const res = ctx.getResponse<unknown>();
    const known = toApiError(exception);
    if (known) {
      if (isDatabaseUnavailable(exception)) this.outage.failed(exception);
      this.platform.sendError(req, res, known);
      return;
    }
    this.logger.error(
      {
        err: describeForLog(exception),
        reqId: req?.id,
        method: req?.method,
        url: req ? this.platform.loggedUrlOf(req) : '',
      },
      'Unhandled error',
    );
    this.platform.sendError(req, res, new ApiError(ErrorCode.InternalServerError));
  }
}
