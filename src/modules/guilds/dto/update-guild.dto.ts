import { IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { IsVisibleText } from '../../../common/text/visible-text';

export class UpdateGuildDto {
  /** Guild name, 2-100 characters. */
  // null is not "absent": a name cannot be removed, so it must fail validation.
  @ValidateIf((_o, v) => v !== undefined)
  @IsString()
  @MinLength(2)
  @MaxLength(100)
  @IsVisibleText()
  name?: string;

  /** Base64ImageType data URI; null removes the icon. */
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  icon?: string | null;

  /** Base64ImageType data URI; null removes the banner. */
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  banner?: string | null;
}
