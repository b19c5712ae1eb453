import { Type } from 'class-transformer';
import { IsDateString, IsInt, IsOptional, Max, Min } from 'class-validator';

/** A page of Discord's newer pins list: pinned before `before` (ISO 8601), newest pin first. */
export class ListPinsQueryDto {
  /** Only pins made before this time (ISO 8601). */
  @IsOptional()
  @IsDateString()
  before?: string;

  /** 1–50 (default 50). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(50)
  limit?: number;
}
