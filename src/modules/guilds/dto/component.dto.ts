// Swagger schemas of Discord's message components. Documentation only: `components` is read by
// components/components.ts, which reports every problem at its path
// (`components.0.components.1.custom_id`).
import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';

/** A custom emoji (`id`) or a unicode one (`name`). */
export class ComponentEmojiDto {
  /** A custom emoji's id. */
  @ApiPropertyOptional({ nullable: true, example: null })
  id?: string | null;
  /** A unicode emoji, or the custom emoji's name. */
  @ApiPropertyOptional({ nullable: true, example: '👍' })
  name?: string | null;
  animated?: boolean;
}

/** A button (type 2): styles 1–4 send an interaction with their `custom_id`; 5 opens `url`. */
export class ButtonComponentDto {
  @ApiProperty({ type: 'integer', enum: [2], example: 2 })
  type: number;
  /** Optional 32-bit identifier, unique within the message. */
  @ApiPropertyOptional({ type: 'integer', minimum: 0 })
  id?: number;
  /** 1 primary, 2 secondary, 3 success, 4 danger, 5 link. */
  @ApiProperty({ type: 'integer', enum: [1, 2, 3, 4, 5], example: 1 })
  style: number;
  /** At most 80 characters. */
  @ApiPropertyOptional({ maxLength: 80 })
  label?: string;
  emoji?: ComponentEmojiDto;
  /** Styles 1–4: 1–100 characters, unique within the message. */
  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  custom_id?: string;
  /** Style 5 only: an `http` or `https` URL. */
  @ApiPropertyOptional({ maxLength: 512, format: 'uri' })
  url?: string;
  disabled?: boolean;
}

/** An option of a string select. */
export class SelectOptionDto {
  @ApiProperty({ maxLength: 100 })
  label: string;
  @ApiProperty({ maxLength: 100 })
  value: string;
  @ApiPropertyOptional({ maxLength: 100 })
  description?: string;
  emoji?: ComponentEmojiDto;
  default?: boolean;
}

/** A preselected user, role or channel of an auto-populated select. */
export class SelectDefaultValueDto {
  id: string;
  @ApiProperty({ enum: ['user', 'role', 'channel'] })
  type: string;
}

/**
 * A select menu, alone in its action row: 3 string (with `options`), 5 user, 6 role,
 * 7 mentionable, 8 channel (with `channel_types`); the last four take `default_values`.
 */
export class SelectMenuComponentDto {
  @ApiProperty({ type: 'integer', enum: [3, 5, 6, 7, 8], example: 3 })
  type: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 0 })
  id?: number;
  @ApiProperty({ minLength: 1, maxLength: 100 })
  custom_id: string;
  /** String selects: 1–25 options. */
  @ApiPropertyOptional({ type: [SelectOptionDto], maxItems: 25 })
  options?: SelectOptionDto[];
  /** Channel selects: the channel types offered. */
  @ApiPropertyOptional({ type: 'integer', isArray: true })
  channel_types?: number[];
  @ApiPropertyOptional({ maxLength: 150 })
  placeholder?: string;
  /** 0–25 (default 1). */
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 25 })
  min_values?: number;
  /** 1–25 (default 1). */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 25 })
  max_values?: number;
  @ApiPropertyOptional({ type: [SelectDefaultValueDto] })
  default_values?: SelectDefaultValueDto[];
  disabled?: boolean;
}

/** A text input (type 4): only in modals, one per action row. */
export class TextInputComponentDto {
  @ApiProperty({ type: 'integer', enum: [4], example: 4 })
  type: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 0 })
  id?: number;
  @ApiProperty({ minLength: 1, maxLength: 100 })
  custom_id: string;
  /** 1 short, 2 paragraph. */
  @ApiProperty({ type: 'integer', enum: [1, 2] })
  style: number;
  @ApiProperty({ maxLength: 45 })
  label: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 4000 })
  min_length?: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 4000 })
  max_length?: number;
  required?: boolean;
  @ApiPropertyOptional({ maxLength: 4000 })
  value?: string;
  @ApiPropertyOptional({ maxLength: 100 })
  placeholder?: string;
}

/** An action row (type 1) of a message: up to 5 buttons, or one select menu. */
export class ActionRowDto {
  @ApiProperty({ type: 'integer', enum: [1], example: 1 })
  type: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 0 })
  id?: number;
  @ApiProperty({
    type: 'array',
    minItems: 1,
    maxItems: 5,
    items: {
      oneOf: [
        { $ref: getSchemaPath(ButtonComponentDto) },
        { $ref: getSchemaPath(SelectMenuComponentDto) },
      ],
    },
  })
  components: Array<ButtonComponentDto | SelectMenuComponentDto>;
}

/** The component models the `oneOf`s refer to (for `@ApiExtraModels`). */
export const COMPONENT_MODELS = [ButtonComponentDto, SelectMenuComponentDto] as const;
