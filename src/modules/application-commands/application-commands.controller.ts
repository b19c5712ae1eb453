import { Body, Controller, HttpCode, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentCaller } from '../../common/auth/auth.decorator';
import type { Caller } from '../../common/auth/caller';
import type { HttpResponse } from '../../common/http/http-types';
import type { ApplicationCommandResponse } from './application-command.response';
import { ApplicationCommandsService } from './application-commands.service';
import { ApplicationId, CommandId, CommandRoute } from './command-routes';
import {
  CreateApplicationCommandDto,
  UpdateApplicationCommandDto,
} from './dto/application-command.dto';

/** Discord's global command routes: `/applications/{application_id}/commands`. */
@ApiTags('Application commands')
@Controller('applications/:application_id/commands')
export class ApplicationCommandsController {
  constructor(private readonly commands: ApplicationCommandsService) {}

  @CommandRoute('list', 'global')
  list(
    @CurrentCaller() caller: Caller,
    @ApplicationId() applicationId: string,
  ): Promise<ApplicationCommandResponse[]> {
    return this.commands.list(caller, { applicationId, guildId: null });
  }

  @CommandRoute('create', 'global')
  async create(
    @CurrentCaller() caller: Caller,
    @ApplicationId() applicationId: string,
    @Body() dto: CreateApplicationCommandDto,
    @Res({ passthrough: true }) res: HttpResponse,
  ): Promise<ApplicationCommandResponse> {
    const scope = { applicationId, guildId: null };
    const { created, command } = await this.commands.create(caller, scope, { ...dto });
    res.status(created ? 201 : 200);
    return command;
  }

  @CommandRoute('overwrite', 'global')
  overwrite(
    @CurrentCaller() caller: Caller,
    @ApplicationId() applicationId: string,
    @Body() body: CreateApplicationCommandDto[],
  ): Promise<ApplicationCommandResponse[]> {
    return this.commands.overwrite(caller, { applicationId, guildId: null }, body);
  }

  @CommandRoute('get', 'global')
  get(
    @CurrentCaller() caller: Caller,
    @ApplicationId() applicationId: string,
    @CommandId() commandId: string,
  ): Promise<ApplicationCommandResponse> {
    return this.commands.get(caller, { applicationId, guildId: null }, commandId);
  }

  @CommandRoute('update', 'global')
  update(
    @CurrentCaller() caller: Caller,
    @ApplicationId() applicationId: string,
    @CommandId() commandId: string,
    @Body() dto: UpdateApplicationCommandDto,
  ): Promise<ApplicationCommandResponse> {
    return this.commands.update(caller, { applicationId, guildId: null }, commandId, { ...dto });
  }

  // Here, not in CommandRoute: the Swagger plugin reads the status from the method's own decorators.
  @HttpCode(204)
  @CommandRoute('delete', 'global')
  delete(
    @CurrentCaller() caller: Caller,
    @ApplicationId() applicationId: string,
    @CommandId() commandId: string,
  ): Promise<void> {
    return this.commands.delete(caller, { applicationId, guildId: null }, commandId);
  }
}
