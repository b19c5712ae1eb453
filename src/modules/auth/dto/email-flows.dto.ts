import { IsEmail, IsString, Length, MaxLength } from 'class-validator';
import { FieldErrorCode } from '../../../common/errors/field-error-code';

/** A token received by e-mail. */
export class EmailTokenDto {
  /** The token from the e-mailed link (`#token=…`). */
  @IsString()
  @MaxLength(256)
  token: string;
}

export class ForgotPasswordDto {
  @IsEmail({}, { message: 'email must be a valid e-mail address' })
  @MaxLength(254)
  email: string;
}

/** Used by `POST /auth/reset` and `POST /auth/email-revert`. */
export class TokenAndPasswordDto {
  /** The token from the e-mailed link. */
  @IsString()
  @MaxLength(256)
  token: string;

  /** The new password, 8-256 characters. */
  @IsString()
  @Length(8, 256, { context: { code: FieldErrorCode.PasswordLength } })
  password: string;
}

export class IpAuthorizationTicketDto {
  /** The ticket from the `IP_AUTHORIZATION_REQUIRED` answer. */
  @IsString()
  @MaxLength(256)
  ticket: string;
}
