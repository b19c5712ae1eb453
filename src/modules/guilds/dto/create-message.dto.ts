import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsBoolean,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { Type } from 'class-transformer';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { AttachmentRefDto } from './attachment-ref.dto';
import { ActionRowDto } from './component.dto';
import { EmbedDto } from './embed.dto';

/** Discord's nonce: a string of at most 25 characters, or an integer. */
export function IsNonce(): PropertyDecorator {
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

/** Discord's message reference: the message a reply answers (of the same channel). */
export class MessageReferenceDto {
  /** The message replied to. */
  @ApiProperty({ example: '1234567890123456789' })
  @Matches(/^\d{1,20}$/, { message: 'message_id must be a snowflake id' })
  message_id: string;

  /** Its channel: this channel (replies stay in their channel). */
  @IsOptional()
  @Matches(/^\d{1,20}$/, { message: 'channel_id must be a snowflake id' })
  channel_id?: string;

  /** Its guild: this channel's. */
  @IsOptional()
  @Matches(/^\d{1,20}$/, { message: 'guild_id must be a snowflake id' })
  guild_id?: string;

  /** false: post as a plain message when the referenced one does not exist (default true: 400). */
  @IsOptional()
  @IsBoolean()
  fail_if_not_exists?: boolean;
}

/** Mention types `allowed_mentions.parse` may list. */
export const MENTION_TYPES = ['users', 'roles', 'everyone'] as const;
export type MentionType = (typeof MENTION_TYPES)[number];

/**
 * Discord's allowed mentions: which mentions in the content take effect. Without it every kind
 * does (and a reply mentions whom it answers); with it only what it lists.
 */
export class AllowedMentionsDto {
  /** Kinds parsed from the content: `users`, `roles`, `everyone`. */
  @ApiProperty({ required: false, enum: MENTION_TYPES, isArray: true })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(3)
  @IsIn(MENTION_TYPES, { each: true })
  parse?: MentionType[];

  /** Users that may be mentioned (not with `parse: ['users']`), at most 100. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @Matches(/^\d{1,20}$/, { each: true, message: 'users must be snowflake ids' })
  users?: string[];

  /** Roles that may be mentioned (not with `parse: ['roles']`), at most 100. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @Matches(/^\d{1,20}$/, { each: true, message: 'roles must be snowflake ids' })
  roles?: string[];

  /** For a reply: whether the author of the answered message is mentioned (default false). */
  @IsOptional()
  @IsBoolean()
  replied_user?: boolean;
}

/** A message needs content, at least one embed or (bots) components. */
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
   * Bots only: up to 5 action rows of buttons (up to 5 a row) or a select menu (alone in its row),
   * Discord's message components. A user's message with components is refused (400).
   */
  @ApiProperty({ required: false, type: [ActionRowDto] })
  @IsOptional()
  @IsArray()
  components?: ActionRowDto[];

  /**
   * Echoed in the response and in the MESSAGE_CREATE event, so a client can match the message it
   * sent: a string of at most 25 characters, or an integer.
   */
  @ApiProperty({ required: false, oneOf: [{ type: 'string', maxLength: 25 }, { type: 'integer' }] })
  @IsOptional()
  @IsNonce()
  nonce?: string | number;

  /**
   * With `nonce`: a post with the same nonce by the same author in this channel within the last
   * few minutes returns the message already posted instead of posting it again.
   */
  @IsOptional()
  @IsBoolean()
  enforce_nonce?: boolean;

  /** Which mentions in the content take effect (Discord's allowed mentions). */
  @ApiProperty({ required: false, type: AllowedMentionsDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => AllowedMentionsDto)
  allowed_mentions?: AllowedMentionsDto;

  /** Makes the message a reply (type 19) to an earlier message of the channel. */
  @ApiProperty({ required: false, type: MessageReferenceDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => MessageReferenceDto)
  message_reference?: MessageReferenceDto;

  /**
   * The files of this multipart request (`id` = the `n` of `files[n]`: filename, description)
   * and files uploaded through upload URLs (`uploaded_filename`); at most 10.
   */
  @ApiProperty({ required: false, type: [AttachmentRefDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => AttachmentRefDto)
  attachments?: AttachmentRefDto[];

  /** Accepted for compatibility; Parley has no text-to-speech (the message is never TTS). */
  @IsOptional()
  @IsBoolean()
  tts?: boolean;
}
