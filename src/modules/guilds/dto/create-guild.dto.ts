import { IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { IsVisibleText } from '../../../common/text/visible-text';

export class CreateGuildDto {
  /** Guild name, 2-100 characters. */
  @IsString()
  @MinLength(2)
  @MaxLength(100)
  @IsVisibleText()
  name: string;

  /** Base64ImageType: `data:image/png;base64,...` (png, jpeg, gif, webp; ≤ 8 MiB). */
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  icon?: string | null;
}
