import { Type } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

export class ListMessagesQueryDto {
  /** 1-100, default 50. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  /** Only messages with a smaller id (older). */
  @IsOptional()
  @Matches(/^\d{1,19}$/, { message: 'before must be a snowflake id' })
  before?: string;

  /** Only messages with a larger id (newer). */
  @IsOptional()
  @Matches(/^\d{1,19}$/, { message: 'after must be a snowflake id' })
  after?: string;
}
