import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';

/**
 * A re-authentication proof, accepted by every sensitive route of the calling user's account:
 * the password, or — once the account has MFA — a current TOTP code (or backup code) or a WebAuthn
 * assertion. A proof also opens a 5-minute grace in which the session's sensitive routes that
 * allow it need no new proof (the login that created the session counts as one).
 */
export class ReauthDto {
  /** The account password. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  password?: string;

  /** Use a second factor instead of the password (the account must have it enabled). */
  @ApiProperty({ required: false, enum: ['totp', 'webauthn'] })
  @IsOptional()
  @IsIn(['totp', 'webauthn'])
  mfa_method?: 'totp' | 'webauthn';

  /**
   * With `mfa_method`: the 6-digit TOTP code or a backup code `xxxx-xxxx`; for `webauthn`, the
   * JSON text of `{"challenge": …, "response": …}` (challenge from
   * `POST /users/@me/mfa/webauthn/reauth-options`).
   */
  @ValidateIf((o: ReauthDto) => o.mfa_method !== undefined || o.mfa_code !== undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(16_384)
  mfa_code?: string;
}

export type ReauthProof = Pick<ReauthDto, 'password' | 'mfa_method' | 'mfa_code'>;
