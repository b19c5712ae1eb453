import { isUtf8 } from 'node:buffer';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import {
  type JsonLimits,
  type JsonTextFindings,
  type JsonTextIssue,
  MAX_DTO_JSON_ITEMS,
  scanJsonText,
} from './json-limits';

/** What each refusal answers (all 400). */
const ISSUE_ERRORS: Record<JsonTextIssue, (limits: JsonLimits) => ApiError> = {
  'too-deep': () => new ApiError(ErrorCode.JsonTooDeep),
  'too-many-items': (limits) =>
    limits.maxItems === MAX_DTO_JSON_ITEMS
      ? new ApiError(ErrorCode.JsonTooManyItems)
      : new ApiError(
          ErrorCode.JsonTooManyItems,
          `The request body has too many items (at most ${limits.maxItems} array elements and object members).`,
        ),
  'lone-surrogate': () =>
    new ApiError(ErrorCode.InvalidJson, 'The request body has an unpaired surrogate escape.'),
};

/**
 * Checks a JSON body's raw bytes before JSON.parse, so nothing downstream — class-transformer
 * recursing per level and copying every item, `encodeURIComponent` throwing on lone surrogates —
 * sees a body it would crash or stall on: UTF-8 only (RFC 8259 §8.1; `charset` is the declared
 * one, null when none), well-formed, within `limits`. Costs ~1 µs per KiB. Throws the 4xx;
 * notes in `found` what the parse must take care of (integers beyond 2^53).
 */
export function checkJsonText(
  body: Uint8Array,
  charset: string | null,
  limits: JsonLimits,
  found?: JsonTextFindings,
): void {
  if (charset !== null && charset !== 'utf-8' && charset !== 'utf8') {
    throw new ApiError(ErrorCode.UnsupportedMediaType, 'JSON bodies must be encoded in UTF-8.');
  }
  if (!isUtf8(body)) {
    throw new ApiError(ErrorCode.InvalidJson, 'The request body is not valid UTF-8.');
  }
  const issue = scanJsonText(body, limits, found);
  if (issue) throw ISSUE_ERRORS[issue](limits);
}
