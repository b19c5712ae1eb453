import { IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';

/** WebhookCreateRequest. */
export class CreateWebhookDto {
  /** 1-80 characters. */
  @IsString()
  @MinLength(1)
  @MaxLength(80)
  name: string;

  /** Base64ImageType: `data:image/png;base64,...` (png, jpeg, gif, webp; ≤ 8 MiB). */
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  avatar?: string | null;
}
