import { Equals, IsEmail, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { IsVisibleText } from '../../../common/text/visible-text';

export const USERNAME_PATTERN = /^[A-Za-z0-9_]{2,32}$/;

export class RegisterDto {
  /** Consent to the terms of service; must be true. */
  @Equals(true, {
    message: 'You must agree to the terms of service.',
    context: { code: FieldErrorCode.ConsentRequired },
  })
  consent: boolean;

  /** YYYY-MM-DD; users must be at least 13. */
  @Matches(/^\d{4}-\d{2}-\d{2}$/, {
    message: 'date_of_birth must be YYYY-MM-DD',
    context: { code: FieldErrorCode.DateOfBirthInvalid },
  })
  date_of_birth: string;

  @IsOptional()
  @IsEmail({}, { message: 'email must be a valid e-mail address' })
  @MaxLength(254)
  email?: string;

  @IsOptional()
  @IsString()
  @Length(1, 32)
  @IsVisibleText()
  global_name?: string;

  /** Guild invite to join after registration (accepted, not used yet). */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  invite_code?: string | null;

  @IsOptional()
  @IsString()
  @Length(8, 256, { context: { code: FieldErrorCode.PasswordLength } })
  password?: string;

  /** `[A-Za-z0-9_]{2,32}`; derived from global_name when missing. */
  @IsOptional()
  @Matches(USERNAME_PATTERN, {
    message: 'username must be 2-32 letters, digits or underscores',
    context: { code: FieldErrorCode.UsernameInvalid },
  })
  username?: string;
}
