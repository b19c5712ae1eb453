import { ArrayMaxSize, IsArray, IsString, MaxLength } from 'class-validator';
import { ReauthDto } from '../mfa/dto/reauth.dto';

/**
 * Ends sessions by `id_hash`. Confirmed by the password (or a second factor when the account has
 * MFA), or by a proof on this session in the last 5 minutes (e.g. having just logged in).
 */
export class LogoutSessionsDto extends ReauthDto {
  /** `id_hash` values from `GET /auth/sessions` (at most 100). */
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  session_id_hashes: string[];
}
