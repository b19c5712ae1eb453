import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateBy,
} from 'class-validator';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { EmbedDto } from './embed.dto';

/** Discord's nonce: a string of at most 25 characters, or an integer. */
function IsNonce(): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isNonce',
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'string' && value.length <= 25) ||
          (typeof value === 'number' && Number.isSafeInteger(value)),
        defaultMessage: () => '$property must be a string of at most 25 characters or an integer',
      },
    },
    { context: { code: FieldErrorCode.BaseTypeInvalid } },
  );
}

/** A message needs content or at least one embed. */
export class CreateMessageDto {
  /** Message text, at most 2000 characters. */
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  content?: string;

  /** Up to 10 embeds. */
  @ApiProperty({ required: false, type: [EmbedDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsObject({ each: true })
  embeds?: EmbedDto[];

  /**
   * Echoed in the response and in the MESSAGE_CREATE event, so a client can match the message it
   * sent: a string of at most 25 characters, or an integer.
   */
  @ApiProperty({ required: false, oneOf: [{ type: 'string', maxLength: 25 }, { type: 'integer' }] })
  @IsOptional()
  @IsNonce()
  nonce?: string | number;

  /** Accepted for compatibility; Parley has no text-to-speech (the message is never TTS). */
  @IsOptional()
  @IsBoolean()
  tts?: boolean;
}
