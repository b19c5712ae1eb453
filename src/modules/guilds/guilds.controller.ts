import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Put,
  Res,
} from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { Caller } from '../../common/auth/caller';
import { ErrorCode } from '../../common/errors/error-code';
import { ApiStandardErrors } from '../../common/http/api-errors.decorator';
import { ErrorResponse } from '../../common/http/error.response';
import { ParseSnowflakePipe } from '../../common/snowflake/parse-snowflake.pipe';
import { ChannelsService } from './channels.service';
import { AddMemberDto } from './dto/add-member.dto';
import { CreateChannelDto } from './dto/create-channel.dto';
import { CreateGuildDto } from './dto/create-guild.dto';
import { UpdateGuildDto } from './dto/update-guild.dto';
import { ChannelResponse, GuildResponse, MemberResponse } from './guild.response';
import { GuildsService } from './guilds.service';

const GuildId = () => Param('guild_id', new ParseSnowflakePipe(ErrorCode.UnknownGuild));

@ApiTags('Guilds')
@ApiStandardErrors()
@ApiNotFoundResponse({ type: ErrorResponse, description: 'Unknown guild (or not a member)' })
@Controller('guilds')
export class GuildsController {
  constructor(
    private readonly guilds: GuildsService,
    private readonly channels: ChannelsService,
  ) {}

  /** Creates a guild: the caller becomes owner, with @everyone and a `general` channel. */
  @Post()
  @Auth({ kind: 'user' })
  @ApiOperation({ operationId: 'create_guild' })
  @ApiCreatedResponse({ type: GuildResponse })
  create(@CurrentCaller() caller: Caller, @Body() dto: CreateGuildDto): Promise<GuildResponse> {
    return this.guilds.create(caller.userId, dto);
  }

  /** A guild the caller is a member of. */
  @Get(':guild_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({ operationId: 'get_guild' })
  @ApiOkResponse({ type: GuildResponse })
  get(@CurrentCaller() caller: Caller, @GuildId() guildId: string): Promise<GuildResponse> {
    return this.guilds.get(caller.userId, guildId);
  }

  /** Renames the guild or changes its icon/banner. Needs MANAGE_GUILD. */
  @Patch(':guild_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({ operationId: 'update_guild' })
  @ApiOkResponse({ type: GuildResponse })
  update(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @Body() dto: UpdateGuildDto,
  ): Promise<GuildResponse> {
    return this.guilds.update(caller.userId, guildId, dto);
  }

  /** The guild's channels, by position. */
  @Get(':guild_id/channels')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({ operationId: 'list_guild_channels' })
  @ApiOkResponse({ type: [ChannelResponse] })
  listChannels(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
  ): Promise<ChannelResponse[]> {
    return this.channels.list(caller.userId, guildId);
  }

  /** Creates a text channel. Needs MANAGE_CHANNELS. */
  @Post(':guild_id/channels')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({ operationId: 'create_guild_channel' })
  @ApiCreatedResponse({ type: ChannelResponse })
  createChannel(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @Body() dto: CreateChannelDto,
  ): Promise<ChannelResponse> {
    return this.channels.create(caller.userId, guildId, dto);
  }

  /**
   * Adds an existing user to the guild (owner or ADMINISTRATOR). 201 with the member when added,
   * 204 when the user already was a member.
   */
  @Put(':guild_id/members/:user_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({ operationId: 'add_guild_member' })
  @ApiCreatedResponse({ type: MemberResponse })
  @ApiNoContentResponse({ description: 'Already a member' })
  async addMember(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @Param('user_id', new ParseSnowflakePipe(ErrorCode.UnknownUser)) userId: string,
    @Body() dto: AddMemberDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<MemberResponse | undefined> {
    const member = await this.guilds.addMember(caller.userId, guildId, userId, dto.roles);
    res.status(member ? 201 : 204);
    return member ?? undefined;
  }

  /** Removes a member (owner or ADMINISTRATOR; members may remove themselves). Not the owner. */
  @Delete(':guild_id/members/:user_id')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({ operationId: 'remove_guild_member' })
  @ApiNoContentResponse({ description: 'Removed' })
  removeMember(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @Param('user_id', new ParseSnowflakePipe(ErrorCode.UnknownMember)) userId: string,
  ): Promise<void> {
    return this.guilds.removeMember(caller.userId, guildId, userId);
  }
}
