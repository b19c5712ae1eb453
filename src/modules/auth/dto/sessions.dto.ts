import { ArrayMaxSize, IsArray, IsString, MaxLength, MinLength } from 'class-validator';

export class LogoutSessionsDto {
  /** `id_hash` values from `GET /auth/sessions` (at most 100). */
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  session_id_hashes: string[];

  /** The account password (required). */
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  password: string;
}
