import { ErrorCode } from '../../../common/errors/error-code';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import type { FieldErrorSpec } from '../../../common/openapi/api-errors.decorator';

/**
 * What `ReauthService.confirm` answers (for `@ApiErrors`): no proof, a wrong password, a second
 * factor the account has not enabled, or a wrong second-factor code.
 */
export const REAUTH_ERRORS: ReadonlyArray<ErrorCode | FieldErrorSpec> = [
  ErrorCode.MfaMethodUnavailable,
  ErrorCode.InvalidMfaCode,
  ['password', FieldErrorCode.PasswordRequired],
  ['password', FieldErrorCode.PasswordDoesNotMatch],
];
