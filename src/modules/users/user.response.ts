import { ApiProperty } from '@nestjs/swagger';

/** The partial user shown wherever another user appears. */
export class UserPartialResponse {
  /** Snowflake id. */
  @ApiProperty({ example: '1234567890123456789' })
  id: string;
  username: string;
  /** Four digits, e.g. `0042`. */
  discriminator: string;
  global_name: string | null;
  /** Avatar hash. */
  avatar: string | null;
  avatar_color: number | null;
  /** PublicUserFlags bitfield. */
  flags: number;
  bot?: boolean;
  system?: boolean;
}

/** The calling user (`GET /users/@me`). */
export class UserPrivateResponse extends UserPartialResponse {
  /** The same PublicUserFlags as `flags`, under Discord's name for them. */
  public_flags: number;
  email: string | null;
  /** Whether the e-mail address has been verified. */
  verified: boolean;
  /** Masked phone number: every digit but the last two, e.g. `+*********71`. */
  phone: string | null;
  mfa_enabled: boolean;
  /** AuthenticatorType values: 0 TOTP, 1 SMS, 2 WebAuthn. */
  @ApiProperty({ type: [Number], example: [] })
  authenticator_types: number[];
  /** YYYY-MM-DD. */
  date_of_birth: string | null;
  created_at: string;
}
