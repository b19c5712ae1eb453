import { IsString, MaxLength, MinLength } from 'class-validator';

/** Confirms a pending TOTP set-up with the authenticator's first code. */
export class TotpEnableDto {
  /** The current 6-digit code of the authenticator app. */
  @IsString()
  @MinLength(1)
  @MaxLength(32)
  code: string;
}
