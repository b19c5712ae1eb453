import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Discord's Create Guild Ban body. */
export class CreateBanDto {
  /**
   * 0-604800: Discord deletes the user's messages of that many past seconds. Accepted and not
   * acted on: Parley deletes no messages on a ban.
   */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(604_800)
  delete_message_seconds?: number | null;
}
