import { ERROR_TABLE, ErrorCode } from './error-code';
import { FIELD_ERROR_TABLE, FieldErrorCode } from './field-error-code';

/** One entry of an INVALID_FORM_BODY's `errors` (path dot-joined, `root` for the whole body). */
export interface FieldError {
  path: string;
  code: FieldErrorCode;
  message: string;
}

/** A field error; the message defaults from FIELD_ERROR_TABLE. */
export function fieldError(path: string, code: FieldErrorCode, message?: string): FieldError {
  return { path, code, message: message ?? FIELD_ERROR_TABLE[code].message };
}

/** A typed API error: status and default message come from `ERROR_TABLE`. */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    /** Extra top-level fields of the envelope (e.g. `errors`, `ticket`, `retry_after`). */
    readonly extra: Record<string, unknown> = {},
    /** Extra response headers. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? ERROR_TABLE[code].message);
    this.status = ERROR_TABLE[code].status;
  }

  /** A 400 INVALID_FORM_BODY for one or more fields. */
  static form(errors: FieldError[]): ApiError {
    return new ApiError(ErrorCode.InvalidFormBody, undefined, { errors });
  }

  /** A 400 INVALID_FORM_BODY for a single field; the message defaults from FIELD_ERROR_TABLE. */
  static field(path: string, code: FieldErrorCode, message?: string): ApiError {
    return ApiError.form([fieldError(path, code, message)]);
  }

  toBody(): Record<string, unknown> {
    return { code: this.code, message: this.message, ...this.extra };
  }
}
