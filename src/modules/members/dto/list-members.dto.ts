import { Type } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

/** Discord's List Guild Members query. */
export class ListMembersQueryDto {
  /** 1-1000, default 1 (Discord's default). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  /** Only members whose user id is larger (paging by the last one seen); default 0. */
  @IsOptional()
  @Matches(/^\d{1,19}$/, { message: 'after must be a snowflake id' })
  after?: string;
}
