import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Matches, MaxLength, Min } from 'class-validator';
import { USERNAME_PATTERN } from '../../auth/dto/register.dto';
import { FieldErrorCode } from '../../../common/errors/field-error-code';

export class BotProfileUpdateDto {
  /** Base64 data URI (PNG, JPEG, GIF or WebP); null removes the avatar. */
  @IsOptional()
  @IsString()
  @ApiProperty({
    type: String,
    nullable: true,
    required: false,
    example: 'data:image/png;base64,…',
  })
  avatar?: string | null;

  /** Base64 data URI (PNG, JPEG, GIF or WebP); null removes the banner. */
  @IsOptional()
  @IsString()
  @ApiProperty({ type: String, nullable: true, required: false })
  banner?: string | null;

  @IsOptional()
  @IsString()
  @MaxLength(1024)
  bio?: string | null;

  /** BotFlags: FRIENDLY_BOT 16, FRIENDLY_BOT_MANUAL_APPROVAL 32. */
  @IsOptional()
  @IsInt()
  @Min(0)
  bot_flags?: number;

  /** Four digits, 0001-9999. */
  @IsOptional()
  @Matches(/^(?!0000)\d{4}$/, {
    message: 'discriminator must be four digits (0001-9999)',
    context: { code: FieldErrorCode.DiscriminatorInvalid },
  })
  discriminator?: string;

  @IsOptional()
  @Matches(USERNAME_PATTERN, {
    message: 'username must be 2-32 letters, digits or underscores',
    context: { code: FieldErrorCode.UsernameInvalid },
  })
  username?: string;
}
