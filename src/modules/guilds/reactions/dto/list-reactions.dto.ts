import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

/** Discord's Get Reactions query. */
export class ListReactionsQueryDto {
  /** 1-100, default 25. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  /** Only users whose id is larger (paging by the last one seen). */
  @IsOptional()
  @Matches(/^\d{1,19}$/, { message: 'after must be a snowflake id' })
  after?: string;

  /** 0 = normal reactions (the default), 1 = super reactions (Parley has none: always empty). */
  @IsOptional()
  @Type(() => Number)
  @IsIn([0, 1])
  type?: number;
}
