import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Discord's Create Guild Ban body. */
export class CreateBanDto {
  /**
   * 0-604800: the user's messages in the guild of that many past seconds are deleted too
   * (MESSAGE_DELETE_BULK per channel); default 0.
   */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(604_800)
  delete_message_seconds?: number | null;
}
