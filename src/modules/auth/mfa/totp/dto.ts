import { IsString, MaxLength, MinLength } from 'class-validator';

/** Confirms a pending TOTP set-up with the authenticator's first code. */
export class TotpEnableDto {
  /** The current 6-digit code of the authenticator app. */
  @IsString()
  @MinLength(1)
  @MaxLength(32)
  code: string;
}

/** A new TOTP seed, pending until its first code is sent to the enable route. */
export class TotpSetupResponse {
  /** The base32 seed (RFC 6238, SHA-1, 6 digits, 30 s): show it once, for manual entry. */
  secret: string;
  /** The `otpauth://totp/…` URI for a QR code. */
  uri: string;
}

/** MfaBackupCodeResponse. */
export class MfaBackupCodeResponse {
  /** `xxxx-xxxx`. */
  code: string;
  consumed: boolean;
}

/** The 10 new backup codes (shown only now: they are stored hashed). */
export class MfaBackupCodesResponse {
  backup_codes: MfaBackupCodeResponse[];
}
