import { IsString, Matches, MaxLength } from 'class-validator';
import { FieldErrorCode } from '../../../common/errors/field-error-code';

export class HandoffCompleteDto {
  /** The code shown by the new device, e.g. `ABCD-EFGH` (case, dashes and spaces are ignored). */
  @IsString()
  @MaxLength(32)
  code: string;

  /** The calling session's own token (proves the caller holds it). */
  @IsString()
  @MaxLength(256)
  token: string;

  /** The calling user's id. */
  @Matches(/^\d{1,20}$/, {
    message: 'user_id must be a snowflake',
    context: { code: FieldErrorCode.InvalidSnowflake },
  })
  user_id: string;
}
