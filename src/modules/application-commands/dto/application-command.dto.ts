import { ApiProperty, OmitType, PartialType } from '@nestjs/swagger';
import { Allow, IsOptional } from 'class-validator';

// The bodies of Discord's command routes. The rules (names, nesting, limits) are checked in one
// place, command-schema.ts, which answers every broken rule as a field error; these classes
// describe the bodies for the OpenAPI document and let their fields through the whitelist
// (`@Allow`, `@IsOptional`: no constraint of their own).

const LOCALIZATIONS = {
  type: 'object',
  additionalProperties: { type: 'string' },
  nullable: true,
  selfRequired: false,
  example: { fr: 'bonjour' },
} as const;

/** A value the user picks from (string, integer and number options; at most 25). */
export class ApplicationCommandChoiceDto {
  /** 1-100 characters. */
  name: string;
  @ApiProperty(LOCALIZATIONS)
  name_localizations?: Record<string, string> | null;
  /** A string (1-100 characters) or a number, of the option's type. */
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'number' }], example: 'red' })
  value: string | number;
}

/**
 * A parameter of a CHAT_INPUT command. At the top level: subcommands (1) and groups (2), or value
 * options (3-11), not both; a group holds subcommands; a subcommand holds value options. At most
 * 25 per level; required options first.
 */
export class ApplicationCommandOptionDto {
  /**
   * 1 SUB_COMMAND, 2 SUB_COMMAND_GROUP, 3 STRING, 4 INTEGER, 5 BOOLEAN, 6 USER, 7 CHANNEL,
   * 8 ROLE, 9 MENTIONABLE, 10 NUMBER, 11 ATTACHMENT.
   */
  @ApiProperty({ minimum: 1, maximum: 11, example: 3 })
  type: number;
  /** 1-32 lower-case letters, digits, - and _ (any script). */
  @ApiProperty({ example: 'colour' })
  name: string;
  @ApiProperty(LOCALIZATIONS)
  name_localizations?: Record<string, string> | null;
  /** 1-100 characters. */
  description: string;
  @ApiProperty(LOCALIZATIONS)
  description_localizations?: Record<string, string> | null;
  /** Value options only; default false. */
  required?: boolean;
  @ApiProperty({ type: () => [ApplicationCommandChoiceDto], required: false })
  choices?: ApplicationCommandChoiceDto[];
  /** A subcommand's or group's own options. */
  @ApiProperty({ type: () => [ApplicationCommandOptionDto], required: false })
  options?: ApplicationCommandOptionDto[];
  /** CHANNEL options: the channel types offered. */
  channel_types?: number[];
  /** INTEGER and NUMBER options. */
  min_value?: number;
  max_value?: number;
  /** STRING options: 0-6000 and 1-6000. */
  min_length?: number;
  max_length?: number;
  /** STRING, INTEGER and NUMBER options without `choices`: the application suggests values. */
  autocomplete?: boolean;
}

/** Discord's Create (and Bulk Overwrite item of) Application Command. */
export class CreateApplicationCommandDto {
  /** 1 CHAT_INPUT (default), 2 USER, 3 MESSAGE. */
  @IsOptional()
  @ApiProperty({ required: false, enum: [1, 2, 3], example: 1 })
  type?: number;
  /**
   * CHAT_INPUT: 1-32 lower-case letters, digits, - and _; USER and MESSAGE: 1-32 characters, any
   * case, spaces allowed. Unique per type: a POST with a taken name updates that command.
   */
  @Allow()
  @ApiProperty({ example: 'paint' })
  name: string;
  @IsOptional()
  @ApiProperty(LOCALIZATIONS)
  name_localizations?: Record<string, string> | null;
  /** CHAT_INPUT: 1-100 characters; USER and MESSAGE: empty. */
  @IsOptional()
  @ApiProperty({ required: false, example: 'Paints the channel a colour' })
  description?: string;
  @IsOptional()
  @ApiProperty(LOCALIZATIONS)
  description_localizations?: Record<string, string> | null;
  /** CHAT_INPUT only; at most 25. */
  @IsOptional()
  @ApiProperty({ type: () => [ApplicationCommandOptionDto], required: false })
  options?: ApplicationCommandOptionDto[];
  /** Permission bitfield (decimal string) a member needs to see and use it; null: everyone. */
  @IsOptional()
  @ApiProperty({ type: String, nullable: true, required: false, example: '8192' })
  default_member_permissions?: string | null;
  /** Deprecated by Discord for `contexts`; default true. */
  @IsOptional()
  dm_permission?: boolean | null;
  /** Interaction contexts: 0 GUILD, 1 BOT_DM, 2 PRIVATE_CHANNEL. */
  @IsOptional()
  @ApiProperty({ type: [Number], nullable: true, required: false, example: [0] })
  contexts?: number[] | null;
  /** Installation types: 0 GUILD_INSTALL (default), 1 USER_INSTALL. */
  @IsOptional()
  @ApiProperty({ type: [Number], required: false, example: [0] })
  integration_types?: number[];
  /** Age-restricted; default false. */
  @IsOptional()
  nsfw?: boolean;
}

/** Discord's Edit Application Command: the fields given change, the others stay (not the type). */
export class UpdateApplicationCommandDto extends PartialType(
  OmitType(CreateApplicationCommandDto, ['type'] as const),
) {}
