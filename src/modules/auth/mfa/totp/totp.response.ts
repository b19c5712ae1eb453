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
