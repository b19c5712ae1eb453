import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Put, Query } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { Caller } from '../../common/auth/caller';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { ParseSnowflakePipe } from '../../common/snowflake/parse-snowflake.pipe';
import { GuildAccessService } from '../guilds/guild-access.service';
import { GuildMembersService } from '../guilds/guild-members.service';
import { GuildMemberResponse } from '../guilds/guild.response';
import { ApplicationFlags } from '../oauth2/application-flags';
import { ApplicationFlagsReader } from '../oauth2/application-flags.port';
import { ListMembersQueryDto } from './dto/list-members.dto';
import { UpdateCurrentMemberDto, UpdateMemberDto } from './dto/update-member.dto';
import { MemberEditsService } from './member-edits.service';
import { UPDATE_CURRENT_MEMBER_EXAMPLES, UPDATE_MEMBER_EXAMPLES } from './members.examples';
import { GuildId, RoleId } from '../../common/snowflake/id-params';

const UserId = () => Param('user_id', new ParseSnowflakePipe(ErrorCode.UnknownMember));

const ROLE_ERRORS = [
  ErrorCode.UnknownGuild,
  ErrorCode.UnknownMember,
  ErrorCode.UnknownRole,
  ErrorCode.MissingPermissions,
  ErrorCode.InvalidRole,
] as const;

/**
 * Discord's member reads (discord.py `fetch_member`/`fetch_members`, discord.js
 * `guild.members.fetch`) and edits. Any member of the guild may read one member; listing them is,
 * for a bot, what the GUILD_MEMBERS privileged intent allows (Discord's rule): its owner must have
 * enabled GATEWAY_GUILD_MEMBERS_LIMITED, else 403. Edits follow the role hierarchy
 * (MemberEditsService).
 */
@ApiTags('Guilds')
@Controller('guilds')
export class MembersController {
  constructor(
    private readonly access: GuildAccessService,
    private readonly members: GuildMembersService,
    private readonly flags: ApplicationFlagsReader,
    private readonly edits: MemberEditsService,
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
    @UserId() userId: string,
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

  @Patch(':guild_id/members/@me')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'update_current_guild_member',
    summary: 'Modify one’s own membership',
    description:
      'The caller’s nickname (null or "" removes it). Needs CHANGE_NICKNAME or MANAGE_NICKNAMES. ' +
      'GUILD_MEMBER_UPDATE.',
  })
  @ApiOkResponse({ type: GuildMemberResponse, description: 'The caller as a member, as changed.' })
  @ApiErrors(ErrorCode.UnknownGuild, ErrorCode.MissingPermissions)
  @ApiBody({ type: UpdateCurrentMemberDto, examples: UPDATE_CURRENT_MEMBER_EXAMPLES })
  updateSelf(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @Body() dto: UpdateCurrentMemberDto,
  ): Promise<GuildMemberResponse> {
    return this.edits.edit(caller.userId, guildId, caller.userId, { nick: dto.nick });
  }

  @Patch(':guild_id/members/:user_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'update_guild_member',
    summary: 'Modify a member',
    description:
      '`nick` needs MANAGE_NICKNAMES (one’s own: CHANGE_NICKNAME); `roles` (the whole list) ' +
      'needs MANAGE_ROLES. Another member must rank below the caller’s highest role (the owner ' +
      'acts on anyone; nobody on the owner); each role added or removed must be below the ' +
      'caller’s highest role and not a bot’s managed role (400 INVALID_ROLE), and roles added ' +
      'may carry only permissions the caller holds. GUILD_MEMBER_UPDATE.',
  })
  @ApiOkResponse({ type: GuildMemberResponse, description: 'The member as changed.' })
  @ApiErrors(
    ErrorCode.UnknownGuild,
    ErrorCode.UnknownMember,
    ErrorCode.MissingPermissions,
    ErrorCode.InvalidRole,
    ['roles.0', FieldErrorCode.UnknownRole],
  )
  @ApiBody({ type: UpdateMemberDto, examples: UPDATE_MEMBER_EXAMPLES })
  update(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @UserId() userId: string,
    @Body() dto: UpdateMemberDto,
  ): Promise<GuildMemberResponse> {
    return this.edits.edit(caller.userId, guildId, userId, dto);
  }

  @Put(':guild_id/members/:user_id/roles/:role_id')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'add_guild_member_role',
    summary: 'Give a member a role',
    description:
      'Needs MANAGE_ROLES, a role below the caller’s highest role (not a managed one) whose ' +
      'permissions the caller holds, and a member below the caller. GUILD_MEMBER_UPDATE when ' +
      'the member did not have it.',
  })
  @ApiNoContentResponse({ description: 'The member has the role.' })
  @ApiErrors(...ROLE_ERRORS)
  addRole(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @UserId() userId: string,
    @RoleId() roleId: string,
  ): Promise<void> {
    return this.edits.setRole(caller.userId, guildId, userId, roleId, true);
  }

  @Delete(':guild_id/members/:user_id/roles/:role_id')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'remove_guild_member_role',
    summary: 'Take a role from a member',
    description:
      'Needs MANAGE_ROLES, a role below the caller’s highest role (not a managed one) and a ' +
      'member below the caller. GUILD_MEMBER_UPDATE when the member had it.',
  })
  @ApiNoContentResponse({ description: 'The member does not have the role.' })
  @ApiErrors(...ROLE_ERRORS)
  removeRole(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @UserId() userId: string,
    @RoleId() roleId: string,
  ): Promise<void> {
    return this.edits.setRole(caller.userId, guildId, userId, roleId, false);
  }

  /** 404 UNKNOWN_GUILD unless the caller is a member (other guilds' ids leak nothing). */
  private async requireMember(caller: Caller, guildId: string): Promise<void> {
    if (!(await this.access.access(caller.userId, guildId))) {
      throw new ApiError(ErrorCode.UnknownGuild);
    }
  }
}
