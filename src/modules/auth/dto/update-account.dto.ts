import {
  IsEmail,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { USERNAME_PATTERN } from './register.dto';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { ReauthDto } from '../mfa/dto/reauth.dto';
import { IsVisibleText } from '../../../common/text/visible-text';

/**
 * `PATCH /users/@me`. Changing `email` or `new_password` needs a re-authentication proof: the
 * current `password`, or `mfa_method` + `mfa_code` when the account has MFA.
 */
export class UpdateAccountDto extends ReauthDto {
  /** `[A-Za-z0-9_]{2,32}`; a new discriminator is allocated when the current one is taken. */
  @IsOptional()
  @Matches(USERNAME_PATTERN, {
    message: 'username must be 2-32 letters, digits or underscores',
    context: { code: FieldErrorCode.UsernameInvalid },
  })
  username?: string;

  /** Display name; null clears it. */
  @ValidateIf((_o, v) => v !== null && v !== undefined)
  @IsString()
  @Length(1, 32)
  @IsVisibleText()
  global_name?: string | null;

  /** New e-mail address: a verification mail goes to it, a revert mail to the old one. */
  @IsOptional()
  @IsEmail({}, { message: 'email must be a valid e-mail address' })
  @MaxLength(254)
  email?: string;

  /** The new password, 8-256 characters. */
  @IsOptional()
  @IsString()
  @Length(8, 256, { context: { code: FieldErrorCode.PasswordLength } })
  new_password?: string;
}
