import { IsInt, IsOptional, IsString, Length, Matches, Min } from 'class-validator';
import { CloseCode } from '../protocol';

/** Resume (op 6), Discord's `d`: continue a session after a dropped connection. */
export class ResumeDto {
  @IsString()
  @Length(1, 512)
  @Matches(/^(Bot )?[\x21-\x7e]+$/)
  token!: string;

  @IsString()
  @Length(1, 128)
  session_id!: string;

  /** The last sequence number received (null: none). */
  @IsOptional()
  @IsInt()
  @Min(0)
  seq?: number | null;
}

/** A resume that does not validate closes with 4002 (a bad token: 4004). */
export const RESUME_CLOSE_CODES: Partial<Record<keyof ResumeDto, CloseCode>> = {
  token: CloseCode.AuthenticationFailed,
};
