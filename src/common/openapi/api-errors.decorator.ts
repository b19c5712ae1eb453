import { applyDecorators } from '@nestjs/common';
import { ApiExtension, DECORATORS } from '@nestjs/swagger';
import type { ErrorCode } from '../errors/error-code';
import type { FieldErrorCode } from '../errors/field-error-code';
import type { OAuthErrorCode } from '../errors/oauth-error';

/**
 * The operation extension that lists the error codes a route answers. `finishOpenApiDocument`
 * turns it into the operation's error responses (one per status, one example per code, status and
 * message from `ERROR_TABLE`), so no controller writes an error example by hand.
 */
export const ERROR_CODES_EXTENSION = 'x-error-codes';
/** Field errors (`errors[].code` of a 400 `INVALID_FORM_BODY`) a route answers: `path:CODE`. */
export const FIELD_ERRORS_EXTENSION = 'x-field-errors';
/** RFC 6749 §5.2 `error` values of the OAuth2 client endpoints (not the Parley envelope). */
export const OAUTH_ERRORS_EXTENSION = 'x-oauth-errors';

/** Marks an operation that no rate limit applies to (`@SkipRateLimit`). */
export const NO_RATE_LIMIT_EXTENSION = 'x-rate-limit-exempt';
/** Marks an operation whose query parameters the handler reads itself (no validation pipe). */
export const QUERY_BY_HAND_EXTENSION = 'x-query-read-by-hand';

/** Marks an operation that also takes its body as `multipart/form-data` with files (`@AcceptsFiles`). */
export const MULTIPART_FILES_EXTENSION = 'x-multipart-files';

/** A field error a route can answer inside `INVALID_FORM_BODY`: `[path, code]`. */
export type FieldErrorSpec = readonly [path: string, code: FieldErrorCode];

export type OAuthErrorName = Exclude<OAuthErrorCode, 'server_error'>;

type Extensions = Record<string, unknown[]>;

function merge(target: object, key: string, values: readonly unknown[]): void {
  const current = (Reflect.getMetadata(DECORATORS.API_EXTENSION, target) ?? {}) as Extensions;
  const next = [...(current[key] ?? [])];
  for (const v of values) {
    if (!next.some((x) => JSON.stringify(x) === JSON.stringify(v))) next.push(v);
  }
  Reflect.defineMetadata(DECORATORS.API_EXTENSION, { ...current, [key]: next }, target);
}

/** Applies to one handler, or to every route handler of a controller class. */
function extend(key: string, values: readonly unknown[]): MethodDecorator & ClassDecorator {
  return ((target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    if (descriptor) {
      merge(descriptor.value as object, key, values);
      return descriptor;
    }
    const proto = (target as { prototype: object }).prototype;
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor') continue;
      const fn = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
      // Only route handlers (Nest's @Get/@Post/... set `path` metadata on them).
      if (typeof fn === 'function' && Reflect.hasMetadata('path', fn)) merge(fn, key, values);
    }
    return target;
  }) as MethodDecorator & ClassDecorator;
}

/**
 * Declares the error codes a route (or every route of a controller) can answer beyond the ones
 * the pipeline adds by itself (credentials, body parsing, validation, rate limits, outages):
 * `@ApiErrors(ErrorCode.UnknownWebhook, ErrorCode.MissingPermissions)`. Field errors of a 400
 * `INVALID_FORM_BODY` are given as `['email', FieldErrorCode.EmailAlreadyRegistered]`.
 * Class decorators must come after (above) the method decorators they complement, which is
 * Nest's usual order.
 */
export function ApiErrors(
  ...codes: ReadonlyArray<ErrorCode | FieldErrorSpec>
): MethodDecorator & ClassDecorator {
  const plain = codes.filter((c): c is ErrorCode => typeof c === 'string');
  const fields = codes
    .filter((c): c is FieldErrorSpec => typeof c !== 'string')
    .map(([path, code]) => `${path}:${code}`);
  const apply = [
    ...(plain.length > 0 ? [extend(ERROR_CODES_EXTENSION, plain)] : []),
    ...(fields.length > 0 ? [extend(FIELD_ERRORS_EXTENSION, fields)] : []),
  ];
  return applyDecorators(...apply);
}

/** The RFC 6749 §5.2 errors an OAuth2 client endpoint answers (token, introspection, revocation). */
export function ApiOAuthErrors(...errors: OAuthErrorName[]): MethodDecorator & ClassDecorator {
  return extend(OAUTH_ERRORS_EXTENSION, errors);
}

/**
 * The handler reads its query parameters itself (as `unknown`, answering its own codes), so a
 * bad one is never a 400 `INVALID_FORM_BODY`: keeps that code out of the route's documentation.
 */
export const ApiQueryReadByHand = (): MethodDecorator & ClassDecorator =>
  ApiExtension(QUERY_BY_HAND_EXTENSION, true);
