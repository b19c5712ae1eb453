import { IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { IsVisibleText } from '../../../common/text/visible-text';

/** WebhookCreateRequest. */
export class CreateWebhookDto {
  /** 1-80 characters. */
  @IsString()
  @MinLength(1)
  @MaxLength(80)
  @IsVisibleText()
  name: string;

  /** Base64ImageType: `data:image/png;base64,...` (png, jpeg, gif, webp; ≤ 8 MiB). */
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  avatar?: string | null;
}
