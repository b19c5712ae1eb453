import { ERROR_TABLE, ErrorCode } from './error-code';

export interface FieldError {
  path: string;
  code: string;
  message: string;
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

  /** A 400 INVALID_FORM_BODY for a single field. */
  static field(path: string, code: string, message: string): ApiError {
    return ApiError.form([{ path, code, message }]);
  }

  toBody(): Record<string, unknown> {
    return { code: this.code, message: this.message, ...this.extra };
  }
}
