import { ApiProperty } from '@nestjs/swagger';

export class FieldErrorResponse {
  /** Dot-joined path of the offending field (`root` for the body itself). */
  path: string;
  /** Machine-readable code, e.g. `BASE_TYPE_REQUIRED`, `INVALID_EMAIL`. */
  code: string;
  message: string;
}

/** The error envelope every non-OAuth error uses. */
export class ErrorResponse {
  /** Machine-readable error code, e.g. `UNKNOWN_WEBHOOK`. */
  @ApiProperty({ example: 'UNKNOWN_WEBHOOK' })
  code: string;
  /** Human-readable description. */
  @ApiProperty({ example: 'Unknown webhook.' })
  message: string;
  /** Field errors (only for `INVALID_FORM_BODY`). */
  @ApiProperty({ type: [FieldErrorResponse], required: false })
  errors?: FieldErrorResponse[];
}

/** The 429 body. */
export class RateLimitResponse {
  @ApiProperty({ example: 'RATE_LIMITED' })
  code: string;
  @ApiProperty({ example: 'You are being rate limited.' })
  message: string;
  /** Seconds to wait before retrying. */
  @ApiProperty({ example: 1.5 })
  retry_after: number;
  /** Whether the global (per-identity) limit was hit rather than the route's bucket. */
  @ApiProperty({ required: false })
  global?: boolean;
}

/** RFC 6749 §5.2 error body used by the OAuth2 token, introspection and revocation endpoints. */
export class OAuthErrorResponse {
  @ApiProperty({ example: 'invalid_grant' })
  error: string;
  @ApiProperty({ required: false })
  error_description?: string;
}
