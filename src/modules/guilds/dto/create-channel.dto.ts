import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { IsVisibleText } from '../../../common/text/visible-text';

export class CreateChannelDto {
  /** 1-100 characters; stored lower-case with spaces turned into dashes. */
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @IsVisibleText()
  name: string;

  /** Channel type: only 0 (guild text) exists. */
  @IsOptional()
  @IsIn([0])
  type?: number;

  /** Sort position; defaults to after the last channel. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10_000)
  position?: number;
}
