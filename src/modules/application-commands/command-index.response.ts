import { ApiProperty } from '@nestjs/swagger';
import { ApplicationCommandResponse } from './application-command.response';

/** A partial application of the index: who the commands belong to. */
export class CommandIndexApplicationResponse {
  @ApiProperty({ example: '1302155402916429824' })
  id: string;
  name: string;
  @ApiProperty({ type: String, nullable: true, example: null })
  description: string | null;
  @ApiProperty({ type: String, nullable: true, example: null })
  icon: string | null;
  /** The application's bot user. */
  @ApiProperty({ example: '1302155402916429825' })
  bot_id: string;
}

/** Discord's application command index of a guild (user API). */
export class CommandIndexResponse {
  /** The applications whose bots are in the guild and have commands the caller may use. */
  applications: CommandIndexApplicationResponse[];
  /** Those commands: global ones and the guild's. */
  application_commands: ApplicationCommandResponse[];
  /** The newest `version` among them ("0" when there are none). */
  @ApiProperty({ example: '1302160418726150146' })
  version: string;
}
