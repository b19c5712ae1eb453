import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { Caller } from '../../common/auth/caller';
import { ErrorCode } from '../../common/errors/error-code';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { GuildId } from '../../common/snowflake/id-params';
import { CommandIndexResponse } from './command-index.response';
import { CommandIndexService } from './command-index.service';

/** Discord's user-side list of the commands a member may invoke in a guild. */
@ApiTags('Application commands')
@Controller('guilds')
export class CommandIndexController {
  constructor(private readonly index: CommandIndexService) {}

  @Get(':guild_id/application-command-index')
  @Auth({ kind: 'user' })
  @ApiOperation({
    operationId: 'get_guild_application_command_index',
    summary: 'List the commands I may use in a guild',
    description:
      'The global and guild commands of the applications whose bots are in the guild, that the ' +
      'caller may use there: USE_APPLICATION_COMMANDS, the command’s ' +
      '`default_member_permissions` ("0": administrators only), a GUILD `context`. The owner and ' +
      'ADMINISTRATOR see all. With the applications they belong to.',
  })
  @ApiOkResponse({ type: CommandIndexResponse, description: 'The index.' })
  @ApiErrors(ErrorCode.UnknownGuild)
  get(@CurrentCaller() caller: Caller, @GuildId() guildId: string): Promise<CommandIndexResponse> {
    return this.index.index(caller.userId, guildId);
  }
}
