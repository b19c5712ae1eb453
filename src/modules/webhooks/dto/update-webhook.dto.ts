import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { IsSnowflake } from '../../../common/snowflake/is-snowflake.decorator';
import { IsVisibleText } from '../../../common/text/visible-text';

/** WebhookTokenUpdateRequest. */
export class UpdateWebhookTokenDto {
  /** 1-80 characters. */
  // null is not "absent": a name cannot be removed, so it must fail validation.
  @ValidateIf((_o, v) => v !== undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(80)
  @IsVisibleText()
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

  // Managers only (not the token routes): whoever holds the token must not be able to drop it.
  @ApiProperty({
    required: false,
    nullable: true,
    type: String,
    minLength: 16,
    maxLength: 256,
    example: 'a-random-string-of-32-chars-0a1b',
    description:
      'Inbound signing secret, 16-256 characters; null removes it. When set, `/repohost` ' +
      'deliveries must carry `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>` and ' +
      '`/errortracker` deliveries `Sentry-Hook-Signature: <hex HMAC-SHA256 of the raw body>`, ' +
      'else 401 INVALID_WEBHOOK_SIGNATURE. Enter the same value in the sender\'s "Secret" field. ' +
      'Write-only: responses show `signing_secret_set`.',
  })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MinLength(16)
  @MaxLength(256)
  signing_secret?: string | null;
}
