import { Type } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

/** Discord's Get Guild Bans query. */
export class ListBansQueryDto {
  /** 1-1000, default 1000. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  /** Only bans of users whose id is smaller (the last `limit` of them). */
  @IsOptional()
  @Matches(/^\d{1,19}$/, { message: 'before must be a snowflake id' })
  before?: string;

  /** Only bans of users whose id is larger. */
  @IsOptional()
  @Matches(/^\d{1,19}$/, { message: 'after must be a snowflake id' })
  after?: string;
}
