import { Controller, Get, Param, Query } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { Caller } from '../../common/auth/caller';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { ParseSnowflakePipe } from '../../common/snowflake/parse-snowflake.pipe';
import { GuildAccessService } from '../guilds/guild-access.service';
import { GuildMembersService } from '../guilds/guild-members.service';
import { GuildMemberResponse } from '../guilds/guild.response';
import { ApplicationFlags } from '../oauth2/application-flags';
import { ApplicationFlagsReader } from '../oauth2/application-flags.port';
import { ListMembersQueryDto } from './dto/list-members.dto';

const GuildId = () => Param('guild_id', new ParseSnowflakePipe(ErrorCode.UnknownGuild));

/**
 * Discord's member reads (discord.py `fetch_member`/`fetch_members`, discord.js
 * `guild.members.fetch`). Any member of the guild may read one member; listing them is, for a
 * bot, what the GUILD_MEMBERS privileged intent allows (Discord's rule): its owner must have
 * enabled GATEWAY_GUILD_MEMBERS_LIMITED, else 403.
 */
@ApiTags('Guilds')
@Controller('guilds')
export class MembersController {
  constructor(
    private readonly access: GuildAccessService,
    private readonly members: GuildMembersService,
    private readonly flags: ApplicationFlagsReader,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  @Get(':guild_id/members/:user_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'get_guild_member',
    summary: 'Get a member',
    description: 'One member of a guild the caller is a member of, as Discord’s member object.',
  })
  @ApiOkResponse({ type: GuildMemberResponse, description: 'The member.' })
  @ApiErrors(ErrorCode.UnknownGuild, ErrorCode.UnknownMember)
  async get(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @Param('user_id', new ParseSnowflakePipe(ErrorCode.UnknownMember)) userId: string,
  ): Promise<GuildMemberResponse> {
    await this.requireMember(caller, guildId);
    const member = await this.members.findMember(this.db.manager, guildId, userId);
    if (!member) throw new ApiError(ErrorCode.UnknownMember);
    return member;
  }

  @Get(':guild_id/members')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'list_guild_members',
    summary: 'List members',
    description:
      'Members in user id order, `limit` (1-1000, default 1) after the user id `after`. A bot ' +
      'needs the GUILD_MEMBERS privileged intent enabled by its owner ' +
      '(GATEWAY_GUILD_MEMBERS_LIMITED), else 403 ACCESS_DENIED.',
  })
  @ApiOkResponse({ type: [GuildMemberResponse], description: 'The members.' })
  @ApiErrors(ErrorCode.UnknownGuild)
  async list(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @Query() query: ListMembersQueryDto,
  ): Promise<GuildMemberResponse[]> {
    await this.requireMember(caller, guildId);
    if (caller.kind === 'bot') {
      const flags = await this.flags.flagsOf(caller.applicationId);
      if (!(flags & ApplicationFlags.GATEWAY_GUILD_MEMBERS_LIMITED)) {
        throw new ApiError(
          ErrorCode.AccessDenied,
          'Listing members needs the GUILD_MEMBERS intent enabled for the application.',
        );
      }
    }
    return this.members.listMembers(this.db.manager, guildId, query.limit ?? 1, query.after ?? '0');
  }

  /** 404 UNKNOWN_GUILD unless the caller is a member (other guilds' ids leak nothing). */
  private async requireMember(caller: Caller, guildId: string): Promise<void> {
    if (!(await this.access.access(caller.userId, guildId))) {
      throw new ApiError(ErrorCode.UnknownGuild);
    }
  }
}
