import { IsString, MaxLength, MinLength } from 'class-validator';

/** MfaTicketRequest: the ticket of an MFA-required login. */
export class MfaTicketDto {
  /** The `ticket` of the MFA-required login answer (valid 5 minutes, single use). */
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  ticket: string;
}

/** MfaTotpRequest / MfaSmsRequest: a code for the ticket of an MFA-required login. */
export class MfaCodeDto extends MfaTicketDto {
  /** The 6-digit code (TOTP: or a backup code `xxxx-xxxx`). */
  @IsString()
  @MinLength(1)
  @MaxLength(32)
  code: string;
}
