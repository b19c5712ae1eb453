import { ApiProperty } from '@nestjs/swagger';
import { ApplicationCommandOptionDto } from './dto/application-command.dto';

const LOCALIZATIONS = {
  type: 'object',
  additionalProperties: { type: 'string' },
  nullable: true,
  example: null,
} as const;

/** Discord's application command object. */
export class ApplicationCommandResponse {
  @ApiProperty({ example: '1302160418726150145' })
  id: string;
  /** 1 CHAT_INPUT, 2 USER, 3 MESSAGE. */
  type: number;
  @ApiProperty({ example: '1302155402916429824' })
  application_id: string;
  /** Present on guild commands. */
  @ApiProperty({ required: false, example: '1302155030349742080' })
  guild_id?: string;
  name: string;
  @ApiProperty(LOCALIZATIONS)
  name_localizations: Record<string, string> | null;
  /** Empty for USER and MESSAGE commands. */
  description: string;
  @ApiProperty(LOCALIZATIONS)
  description_localizations: Record<string, string> | null;
  /** CHAT_INPUT commands that have options. */
  @ApiProperty({ type: () => [ApplicationCommandOptionDto], required: false })
  options?: ApplicationCommandOptionDto[];
  /** Permission bitfield (decimal string) needed to use it; null: everyone. */
  @ApiProperty({ type: String, nullable: true, example: null })
  default_member_permissions: string | null;
  /** Global commands only. */
  @ApiProperty({ required: false })
  dm_permission?: boolean;
  @ApiProperty({ type: [Number], nullable: true, example: null })
  contexts: number[] | null;
  integration_types: number[];
  nsfw: boolean;
  /** A snowflake that changes whenever the command does. */
  @ApiProperty({ example: '1302160418726150146' })
  version: string;
}
