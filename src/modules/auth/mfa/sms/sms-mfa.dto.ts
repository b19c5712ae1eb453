import { IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { ReauthDto } from '../dto/reauth.dto';

/** A phone number to verify, with the re-authentication proof. */
export class AddPhoneDto extends ReauthDto {
  /** E.164, e.g. `+15555550123`. */
  @IsString()
  @MaxLength(32)
  @Matches(/^\+[1-9]\d{7,14}$/, { message: 'phone must be an E.164 number, e.g. +15555550123' })
  phone: string;
}

/** The code texted to the phone being verified. */
export class VerifyPhoneDto {
  /** The 6-digit code. */
  @IsString()
  @MinLength(1)
  @MaxLength(32)
  code: string;
}
