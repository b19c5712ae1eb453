import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { IsSnowflake } from '../../../common/snowflake/is-snowflake.decorator';

/** A snowflake or a list of them, as a list (op 8 takes either). */
const asList = ({ value }: { value: unknown }): unknown =>
  value === undefined || value === null || Array.isArray(value) ? value : [value];

/**
 * Request Guild Members (op 8), Discord's `d`: members of one guild by username prefix (`query`,
 * "" with `limit` 0 for all of them) or by id (`user_ids`, at most 100).
 */
export class RequestGuildMembersDto {
  @IsSnowflake()
  guild_id!: string | number;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  query?: string;

  /** Members at most (0: no limit; with a non-empty query at most 100). */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(100_000)
  limit?: number;

  @IsOptional()
  @IsBoolean()
  presences?: boolean;

  @IsOptional()
  @Transform(asList)
  @IsArray()
  @ArrayMaxSize(100)
  @IsSnowflake({ each: true })
  user_ids?: Array<string | number>;

  /** Echoed in every chunk (at most 32 characters). */
  @IsOptional()
  @IsString()
  @MaxLength(32)
  nonce?: string;
}
