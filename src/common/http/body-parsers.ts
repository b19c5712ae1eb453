import bodyParser from 'body-parser';
import type { FastifyInstance } from 'fastify';
import type { RawBodyRequest } from '@nestjs/common';
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toApiError } from '../errors/all-exceptions.filter';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import { OAuthError } from '../errors/oauth-error';
import {
  type JsonLimits,
  type JsonTextIssue,
  MAX_DTO_JSON_ITEMS,
  MAX_JSON_DEPTH,
  scanJsonText,
} from './json-limits';

/** RFC 6749 endpoints answer even parse errors in their own shape. */
export const OAUTH_ERROR_PATHS = /^\/v1\/oauth2\/(token|token\/revoke|introspect)\/?$/;

/** Paths whose senders post large foreign payloads (GitHub-style pushes): 25 MiB. */
export const LARGE_BODY_PATHS = [/^\/v1\/webhooks\/[^/]+\/[^/]+\/repohost\/?$/];

/**
 * POSTs of foreign payloads (webhook execution): taken as `unknown`, never run through
 * class-transformer, so only their depth is capped — a real delivery can hold many items.
 */
export const FOREIGN_PAYLOAD_PATHS =
  /^\/v1\/webhooks\/[^/]+\/[^/]+(?:\/(?:errortracker|chatcompat))?\/?$/;

/**
 * Deliveries that may be signed (HMAC of the exact bytes received): their raw body, JSON or
 * form-encoded, is kept on the raw request (`request.raw.rawBody`, read with `@RawBody()`) for
 * the signature check. No other route keeps it.
 */
export const SIGNED_PAYLOAD_PATHS = /^\/v1\/webhooks\/[^/]+\/[^/]+\/(?:repohost|errortracker)\/?$/;

type BodyVerifier = (req: IncomingMessage, res: ServerResponse, body: Buffer, enc: string) => void;

/** Wraps a body-parser `verify` hook so that the bytes it checked stay on the request. */
function keepingRawBody(verify?: BodyVerifier): BodyVerifier {
  return (req, res, body, encoding) => {
    verify?.(req, res, body, encoding);
    (req as RawBodyRequest<IncomingMessage>).rawBody = body;
  };
}

const JSON_TYPES = ['application/json', 'application/*+json'];

/** What each refusal answers (all 400). */
const ISSUE_ERRORS: Record<JsonTextIssue, () => ApiError> = {
  'too-deep': () => new ApiError(ErrorCode.JsonTooDeep),
  'too-many-items': () => new ApiError(ErrorCode.JsonTooManyItems),
  'lone-surrogate': () =>
    new ApiError(ErrorCode.InvalidJson, 'The request body has an unpaired surrogate escape.'),
};

/**
 * body-parser's `verify` hook: checks a JSON body's raw bytes before JSON.parse, so nothing
 * downstream — class-transformer recursing per level and copying every item, `encodeURIComponent`
 * throwing on lone surrogates — sees a body it would crash or stall on: UTF-8 only (RFC 8259
 * §8.1), well-formed, within `limits`. Costs ~1 µs per KiB.
 */
export function jsonBodyVerifier(
  limits: JsonLimits,
): (req: IncomingMessage, res: ServerResponse, body: Buffer, encoding: string) => void {
  return (_req, _res, body, encoding) => {
    if (encoding !== 'utf-8') {
      throw new ApiError(ErrorCode.UnsupportedMediaType, 'JSON bodies must be encoded in UTF-8.');
    }
    if (!isUtf8(body)) {
      throw new ApiError(ErrorCode.InvalidJson, 'The request body is not valid UTF-8.');
    }
    const issue = scanJsonText(body, limits);
    if (issue) throw ISSUE_ERRORS[issue]();
  };
}

type Middleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (err?: unknown) => void,
) => void;

/** Runs body-parser middlewares one after the other on the raw request, like Express would. */
function chain(...parsers: Middleware[]): Middleware {
  return (req, res, next) => {
    let i = 0;
    const step = (err?: unknown): void => {
      if (err || i === parsers.length) return next(err);
      parsers[i++](req, res, step);
    };
    step();
  };
}

/** The request path, without the query (after the root-alias rewrite). */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/**
 * Body parsing with the limits of ARCHITECTURE.md §5, and parse errors rendered as the envelope
 * (an unparsable body is a 400, never `{}`). Fastify's own parsers are replaced by one catch-all
 * parser that runs body-parser (the parser Express uses) on the raw request: it undoes
 * `Content-Encoding`, honours the declared charset, enforces the size limit per route and calls
 * the `verify` hooks above on the exact bytes received — the signed routes keep them as
 * `rawBody`. A content type no parser takes leaves the body undefined (the DTO validation then
 * answers), as in Express.
 */
export function registerBodyParsers(
  app: FastifyInstance,
  limits: { json: number; large: number },
): void {
  const foreign = jsonBodyVerifier({ maxDepth: MAX_JSON_DEPTH, maxItems: Infinity });
  const dto = jsonBodyVerifier({ maxDepth: MAX_JSON_DEPTH, maxItems: MAX_DTO_JSON_ITEMS });
  // Flat `key=value` pairs (no `a[b]` nesting, no prototype keys), at most 1,000; a repeated key
  // is an array of strings.
  const form = bodyParser.urlencoded({ limit: limits.json, extended: false });
  const parsers = {
    signedLarge: chain(
      bodyParser.json({ limit: limits.large, type: JSON_TYPES, verify: keepingRawBody(foreign) }),
      bodyParser.urlencoded({ limit: limits.json, extended: false, verify: keepingRawBody() }),
    ),
    signed: chain(
      bodyParser.json({ limit: limits.json, type: JSON_TYPES, verify: keepingRawBody(foreign) }),
      bodyParser.urlencoded({ limit: limits.json, extended: false, verify: keepingRawBody() }),
    ),
    large: chain(bodyParser.json({ limit: limits.large, type: JSON_TYPES, verify: foreign }), form),
    foreign: chain(
      bodyParser.json({ limit: limits.json, type: JSON_TYPES, verify: foreign }),
      form,
    ),
    dto: chain(bodyParser.json({ limit: limits.json, type: JSON_TYPES, verify: dto }), form),
  };
  const parserFor = (method: string, path: string): Middleware => {
    const large = LARGE_BODY_PATHS.some((re) => re.test(path));
    if (method === 'POST' && SIGNED_PAYLOAD_PATHS.test(path)) {
      return large ? parsers.signedLarge : parsers.signed;
    }
    if (large) return parsers.large;
    if (method === 'POST' && FOREIGN_PAYLOAD_PATHS.test(path)) return parsers.foreign;
    return parsers.dto;
  };

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => {
    const req = payload as IncomingMessage & { body?: unknown };
    const path = pathOf(request.url);
    parserFor(request.method, path)(req, null as never, (err?: unknown) => {
      if (!err) return done(null, req.body);
      const apiError = toApiError(err);
      if (!apiError) return done(err as Error);
      done(
        OAUTH_ERROR_PATHS.test(path)
          ? new OAuthError('invalid_request', 'The request body could not be parsed.')
          : apiError instanceof ApiError
            ? apiError
            : new ApiError(ErrorCode.BadRequest),
      );
    });
  });
}
