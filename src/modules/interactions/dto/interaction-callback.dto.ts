import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { AllowedMentionsDto } from '../../guilds/dto/create-message.dto';
import { EditMessageDto } from '../../guilds/dto/edit-message.dto';

/** Discord's interaction callback types. */
export const CallbackType = {
  PONG: 1,
  CHANNEL_MESSAGE_WITH_SOURCE: 4,
  DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: 5,
  DEFERRED_UPDATE_MESSAGE: 6,
  UPDATE_MESSAGE: 7,
  APPLICATION_COMMAND_AUTOCOMPLETE_RESULT: 8,
  MODAL: 9,
} as const;

/** An interaction's answer (`POST /interactions/{id}/{token}/callback`). */
export class InteractionCallbackDto {
  /** 4 message, 5 deferred message, 6 deferred update, 7 update, 8 autocomplete choices, 9 modal. */
  @ApiProperty({ enum: [1, 4, 5, 6, 7, 8, 9], example: 4 })
  @IsIn([1, 4, 5, 6, 7, 8, 9])
  type: number;

  /** The message (4, 7; `flags` for 5), the choices (8) or the modal (9). */
  @ApiProperty({ required: false, type: Object, additionalProperties: true })
  @IsOptional()
  @IsObject()
  data?: Record<string, unknown>;
}

/**
 * A message an interaction posts or edits (callback types 4 and 7, follow-ups, `@original`): a
 * message edit's fields (content, embeds, components) plus what a new one may say.
 */
export class InteractionMessageDto extends EditMessageDto {
  @ApiProperty({ required: false, type: () => AllowedMentionsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => AllowedMentionsDto)
  allowed_mentions?: AllowedMentionsDto;

  /** 64 EPHEMERAL (only the invoking user sees it), 4 SUPPRESS_EMBEDS. */
  @IsOptional()
  @IsInt()
  flags?: number;

  /** Accepted and ignored (no text-to-speech). */
  @IsOptional()
  tts?: boolean;
}

/** An autocomplete choice. */
export class AutocompleteChoiceDto {
  @IsString()
  @Length(1, 100)
  name: string;

  /** What the option takes when chosen: a string (≤ 100) or a number. */
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'number' }] })
  @ValidateBy(
    {
      name: 'isChoiceValue',
      validator: {
        validate: (v: unknown) =>
          (typeof v === 'string' && v.length <= 100) ||
          (typeof v === 'number' && Number.isFinite(v)),
        defaultMessage: () => '$property must be a string of at most 100 characters or a number',
      },
    },
    { context: { code: FieldErrorCode.BaseTypeInvalid } },
  )
  value: string | number;
}

/** Callback type 8: up to 25 choices. */
export class AutocompleteResultDto {
  @ApiProperty({ type: [AutocompleteChoiceDto] })
  @IsArray()
  @ArrayMaxSize(25)
  @ValidateNested({ each: true })
  @Type(() => AutocompleteChoiceDto)
  choices: AutocompleteChoiceDto[];
}

/** Callback type 9: a modal of up to 5 rows of text inputs. */
export class ModalDto {
  @IsString()
  @Length(1, 100)
  custom_id: string;

  @IsString()
  @Length(1, 45)
  title: string;

  @ApiProperty({ type: 'array', items: { type: 'object' } })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(5)
  components: Array<Record<string, unknown>>;
}
