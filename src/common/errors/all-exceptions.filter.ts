import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { QueryFailedError } from 'typeorm';
import { ApiError } from './api-error';
import { ERROR_TABLE, ErrorCode } from './error-code';
import { OAuthError } from './oauth-error';
import { databaseUnavailableError, isDatabaseUnavailable } from './database-unavailable';
import { loggedUrlOf } from '../http/logging';
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

export function sendError(res: FastifyReply, error: ApiError | OAuthError): void {
  if (res.sent || res.raw.headersSent) return;
  if (error instanceof OAuthError) {
    res.header('Cache-Control', 'no-store');
    res.header('Pragma', 'no-cache');
    for (const [k, v] of Object.entries(error.headers)) {
      if (k === 'WWW-Authenticate' && !challengeWanted(res.request)) continue;
      res.header(k, v);
    }
    res.status(error.status).send({ error: error.error, error_description: error.description });
    return;
  }
  for (const [k, v] of Object.entries(error.headers)) res.header(k, v);
  res.status(error.status).send(error.toBody());
}

/**
 * RFC 6749 §5.2 requires the `WWW-Authenticate` challenge of an `invalid_client` when the client
 * authenticated with the Authorization header, and allows it otherwise. A browser answers a Basic
 * challenge to a script's request with its own login prompt instead of handing the 401 to the
 * script (Swagger UI's "Execute" then never shows it), so a script's request (`Sec-Fetch-Mode`
 * other than `navigate`) that sent no Authorization header gets the 401 without the challenge.
 */
function challengeWanted(req: FastifyRequest | undefined): boolean {
  if (!req || req.headers.authorization !== undefined) return true;
  const mode = req.headers['sec-fetch-mode'];
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

  constructor(private readonly outage: DatabaseOutageTracker) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<FastifyRequest | undefined>();
    const res = ctx.getResponse<FastifyReply>();
    const known = toApiError(exception);
    if (known) {
      if (isDatabaseUnavailable(exception)) this.outage.failed(exception);
      sendError(res, known);
      return;
    }
    this.logger.error(
      {
        err: describeForLog(exception),
        reqId: req?.id,
        method: req?.method,
        url: req ? loggedUrlOf(req) : '',
      },
      'Unhandled error',
    );
    sendError(res, new ApiError(ErrorCode.InternalServerError));
  }
}
