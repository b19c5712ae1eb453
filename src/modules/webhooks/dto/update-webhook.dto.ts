import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { IsSnowflake } from '../../../common/snowflake/is-snowflake.decorator';

/** WebhookTokenUpdateRequest. */
export class UpdateWebhookTokenDto {
  /** 1-80 characters. */
  // null is not "absent": a name cannot be removed, so it must fail validation.
  @ValidateIf((_o, v) => v !== undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(80)
  name?: string;

  /** Base64ImageType data URI; null removes the avatar. */
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  avatar?: string | null;
}

/** WebhookUpdateRequest. */
export class UpdateWebhookDto extends UpdateWebhookTokenDto {
  /** Move the webhook to another channel of the same guild. */
  @ApiProperty({ required: false, type: String, example: '1234567890123456789' })
  @IsOptional()
  @IsSnowflake()
  channel_id?: string | number;
}
