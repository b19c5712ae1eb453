import { IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { IsVisibleText } from '../../../common/text/visible-text';

/** Discord's Modify Channel, for what a Parley text channel has: its name and position. */
export class UpdateChannelDto {
  /** 1-100 characters; stored lower-case with spaces turned into dashes. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @IsVisibleText()
  name?: string;

  /** Sort position. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10_000)
  position?: number;
}
