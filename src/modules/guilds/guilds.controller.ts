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
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { HttpResponse } from '../../common/http/http-types';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { BotCaller, Caller } from '../../common/auth/caller';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { ParseSnowflakePipe } from '../../common/snowflake/parse-snowflake.pipe';
import { ChannelsService } from './channels.service';
import { AddMemberDto } from './dto/add-member.dto';
import { CreateChannelDto } from './dto/create-channel.dto';
import { CreateGuildDto } from './dto/create-guild.dto';
import { UpdateGuildDto } from './dto/update-guild.dto';
import { ChannelResponse, GuildResponse, MemberResponse } from './guild.response';
import { GuildsService } from './guilds.service';
import {
  ADD_MEMBER_EXAMPLES,
  CREATE_CHANNEL_EXAMPLES,
  CREATE_GUILD_EXAMPLES,
  UPDATE_GUILD_EXAMPLES,
} from './guilds.examples';
import { GuildId } from '../../common/snowflake/id-params';

@ApiTags('Guilds')
@Controller('guilds')
export class GuildsController {
  constructor(
    private readonly guilds: GuildsService,
    private readonly channels: ChannelsService,
  ) {}

  /** Creates a guild: the caller becomes owner, with @everyone and a `general` channel. */
  @Post()
  @Auth({ kind: 'user' })
  @ApiOperation({
    operationId: 'create_guild',
    summary: 'Create a guild',
    description:
      'The caller becomes its owner; the guild starts with the @everyone role and a general ' +
      'text channel. `icon` is an image data URI.',
  })
  @ApiCreatedResponse({ type: GuildResponse, description: 'The new guild.' })
  @ApiErrors(['icon', FieldErrorCode.ImageInvalid], ['icon', FieldErrorCode.ImageTooLarge])
  @ApiBody({ type: CreateGuildDto, examples: CREATE_GUILD_EXAMPLES })
  create(@CurrentCaller() caller: Caller, @Body() dto: CreateGuildDto): Promise<GuildResponse> {
    return this.guilds.create(caller.userId, dto);
  }

  /** A guild the caller is a member of. */
  @Get(':guild_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'get_guild',
    summary: 'Get a guild',
    description: 'A guild the caller is a member of (404 otherwise).',
  })
  @ApiOkResponse({ type: GuildResponse, description: 'The guild.' })
  @ApiErrors(ErrorCode.UnknownGuild)
  get(@CurrentCaller() caller: Caller, @GuildId() guildId: string): Promise<GuildResponse> {
    return this.guilds.get(caller.userId, guildId);
  }

  /** Renames the guild or changes its icon/banner. Needs MANAGE_GUILD. */
  @Patch(':guild_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'update_guild',
    summary: 'Update a guild',
    description: 'Name, icon or banner (image data URIs; null clears one). Needs MANAGE_GUILD.',
  })
  @ApiOkResponse({ type: GuildResponse, description: 'The updated guild.' })
  @ApiErrors(
    ErrorCode.UnknownGuild,
    ErrorCode.MissingPermissions,
    ['icon', FieldErrorCode.ImageInvalid],
    ['icon', FieldErrorCode.ImageTooLarge],
    ['banner', FieldErrorCode.ImageInvalid],
    ['banner', FieldErrorCode.ImageTooLarge],
  )
  @ApiBody({ type: UpdateGuildDto, examples: UPDATE_GUILD_EXAMPLES })
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
  @ApiOperation({ operationId: 'list_guild_channels', summary: 'List a guild’s channels' })
  @ApiOkResponse({ type: [ChannelResponse], description: 'The channels, by position.' })
  @ApiErrors(ErrorCode.UnknownGuild)
  listChannels(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
  ): Promise<ChannelResponse[]> {
    return this.channels.list(caller.userId, guildId);
  }

  /** Creates a text channel. Needs MANAGE_CHANNELS. */
  @Post(':guild_id/channels')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'create_guild_channel',
    summary: 'Create a channel',
    description: 'A text channel, at the end of the list. Needs MANAGE_CHANNELS; at most 500.',
  })
  @ApiCreatedResponse({ type: ChannelResponse, description: 'The new channel.' })
  @ApiErrors(ErrorCode.UnknownGuild, ErrorCode.MissingPermissions, ErrorCode.MaxGuildChannels, [
    'name',
    FieldErrorCode.BaseTypeRequired,
  ])
  @ApiBody({ type: CreateChannelDto, examples: CREATE_CHANNEL_EXAMPLES })
  createChannel(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @Body() dto: CreateChannelDto,
  ): Promise<ChannelResponse> {
    return this.channels.create(caller.userId, guildId, dto);
  }

  /**
   * Discord's "Add Guild Member": a bot adds a user who granted its application `guilds.join`.
   * 201 with the member when added, 204 when the user already was a member.
   */
  @Put(':guild_id/members/:user_id')
  @Auth({ kind: 'bot' })
  @ApiOperation({
    operationId: 'add_guild_member',
    summary: 'Add a member (bot, with the user’s guilds.join grant)',
    description:
      'A bot adds a user to a guild with the user’s consent: `access_token` is an OAuth2 access ' +
      'token of that user, granted to the bot’s application with the `guilds.join` scope. The ' +
      'bot needs CREATE_INSTANT_INVITE; `roles` need MANAGE_ROLES, and only roles whose ' +
      'permissions the bot holds itself (403 MISSING_PERMISSIONS with `missing_permissions`). ' +
      '201 with the member when added, 204 when the user already was a member (nothing changes). ' +
      'A user banned from the guild is refused (403 BANNED_FROM_GUILD).',
  })
  @ApiCreatedResponse({ type: MemberResponse, description: 'Added: the new member.' })
  @ApiNoContentResponse({ description: 'Already a member: nothing changed.' })
  @ApiErrors(
    ErrorCode.UnknownGuild,
    ErrorCode.UnknownUser,
    ErrorCode.MissingPermissions,
    ErrorCode.InvalidOauth2AccessToken,
    ErrorCode.BannedFromGuild,
    ['roles', FieldErrorCode.UnknownRole],
    ['access_token', FieldErrorCode.BaseTypeString],
  )
  @ApiBody({ type: AddMemberDto, examples: ADD_MEMBER_EXAMPLES })
  async addMember(
    @CurrentCaller() caller: BotCaller,
    @GuildId() guildId: string,
    @Param('user_id', new ParseSnowflakePipe(ErrorCode.UnknownUser)) userId: string,
    @Body() dto: AddMemberDto,
    @Res({ passthrough: true }) res: HttpResponse,
  ): Promise<MemberResponse | undefined> {
    const member = await this.guilds.addMember(caller, guildId, userId, dto);
    res.status(member ? 201 : 204);
    return member ?? undefined;
  }

  /** Removes a member (Discord's kick: KICK_MEMBERS and the hierarchy; anyone may leave). Not the owner. */
  @Delete(':guild_id/members/:user_id')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'remove_guild_member',
    summary: 'Remove a member',
    description:
      'Discord’s kick: KICK_MEMBERS, on a member whose highest role is below the caller’s (the ' +
      'owner removes anyone); any member may remove themselves. The owner cannot be removed. ' +
      'GUILD_MEMBER_REMOVE.',
  })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiErrors(
    ErrorCode.UnknownGuild,
    ErrorCode.UnknownMember,
    ErrorCode.MissingPermissions,
    ErrorCode.CannotRemoveGuildOwner,
  )
  removeMember(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @Param('user_id', new ParseSnowflakePipe(ErrorCode.UnknownMember)) userId: string,
  ): Promise<void> {
    return this.guilds.removeMember(caller.userId, guildId, userId);
  }
}
