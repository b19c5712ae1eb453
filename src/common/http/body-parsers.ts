import express, { type ErrorRequestHandler, type Express } from 'express';
import { sendError, toApiError } from '../errors/all-exceptions.filter';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import { OAuthError } from '../errors/oauth-error';

/** RFC 6749 endpoints answer even parse errors in their own shape. */
export const OAUTH_ERROR_PATHS = /^\/v1\/oauth2\/(token|token\/revoke|introspect)\/?$/;

/** Paths whose senders post large foreign payloads (GitHub-style pushes): 25 MiB. */
export const LARGE_BODY_PATHS = [/^\/v1\/webhooks\/[^/]+\/[^/]+\/repohost\/?$/];

/**
 * Body parsing with the limits of DESIGN.md §6, and parse errors rendered as the envelope
 * (an unparsable body is a 400, never `{}`).
 */
export function registerBodyParsers(app: Express, limits: { json: number; large: number }): void {
  const largeJson = express.json({
    limit: limits.large,
    type: ['application/json', 'application/*+json'],
  });
  app.use((req, res, next) => {
    if (LARGE_BODY_PATHS.some((re) => re.test(req.path))) largeJson(req, res, next);
    else next();
  });
  app.use(express.json({ limit: limits.json, type: ['application/json', 'application/*+json'] }));
  app.use(express.urlencoded({ limit: limits.json, extended: false }));
  const onParseError: ErrorRequestHandler = (err, req, res, next) => {
    const apiError = toApiError(err);
    if (!apiError) return next(err);
    if (OAUTH_ERROR_PATHS.test(req.path)) {
      return sendError(
        res,
        new OAuthError('invalid_request', 'The request body could not be parsed.'),
      );
    }
    sendError(res, apiError instanceof ApiError ? apiError : new ApiError(ErrorCode.BadRequest));
  };
  app.use(onParseError);
}
