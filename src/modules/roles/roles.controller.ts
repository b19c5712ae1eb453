import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { Caller } from '../../common/auth/caller';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { RoleResponse } from '../guilds/role.response';
import { CreateRoleDto } from './dto/create-role.dto';
import { RolePositionDto, RolePositionsPipe } from './dto/role-positions.dto';
import { UpdateRoleDto } from './dto/update-role.dto';
import {
  CREATE_ROLE_EXAMPLES,
  ROLE_POSITIONS_EXAMPLES,
  UPDATE_ROLE_EXAMPLES,
} from './roles.examples';
import { RolesService } from './roles.service';
import { GuildId, RoleId } from '../../common/snowflake/id-params';

/** The hierarchy and grant failures every write answers (403), besides not being a member (404). */
const WRITE_ERRORS = [ErrorCode.UnknownGuild, ErrorCode.MissingPermissions] as const;

/**
 * Discord's role routes. Reads: any member. Writes: MANAGE_ROLES, on roles below the caller's
 * highest role (the owner: any), granting only permissions the caller holds.
 */
@ApiTags('Guilds')
@Controller('guilds')
export class RolesController {
  constructor(private readonly roles: RolesService) {}

  @Get(':guild_id/roles')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'list_guild_roles',
    summary: 'List roles',
    description: 'Every role of a guild the caller is a member of, @everyone included.',
  })
  @ApiOkResponse({ type: [RoleResponse], description: 'The roles, lowest first.' })
  @ApiErrors(ErrorCode.UnknownGuild)
  list(@CurrentCaller() caller: Caller, @GuildId() guildId: string): Promise<RoleResponse[]> {
    return this.roles.list(caller.userId, guildId);
  }

  @Post(':guild_id/roles')
  @HttpCode(200)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'create_guild_role',
    summary: 'Create a role',
    description:
      'Needs MANAGE_ROLES; `permissions` may only hold bits the caller holds (403 ' +
      'MISSING_PERMISSIONS with `missing_permissions`). The role starts at the bottom ' +
      '(position 1, just above @everyone). GUILD_ROLE_CREATE. At most 250 roles.',
  })
  @ApiOkResponse({ type: RoleResponse, description: 'The new role.' })
  @ApiErrors(...WRITE_ERRORS, ErrorCode.MaxGuildRoles, [
    'permissions',
    FieldErrorCode.PermissionsInvalid,
  ])
  @ApiBody({ type: CreateRoleDto, examples: CREATE_ROLE_EXAMPLES })
  create(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @Body() dto: CreateRoleDto,
  ): Promise<RoleResponse> {
    return this.roles.create(caller.userId, guildId, dto);
  }

  @Patch(':guild_id/roles')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'update_guild_role_positions',
    summary: 'Move roles',
    description:
      'A list of `{id, position}`. Needs MANAGE_ROLES; the caller moves only roles below their ' +
      'highest role, to positions below it (the owner: any). @everyone stays at 0. ' +
      'GUILD_ROLE_UPDATE for each role that moved. Answers every role of the guild.',
  })
  @ApiOkResponse({ type: [RoleResponse], description: 'Every role of the guild, lowest first.' })
  @ApiErrors(...WRITE_ERRORS, ErrorCode.InvalidRole, ['0.id', FieldErrorCode.UnknownRole])
  @ApiBody({ type: [RolePositionDto], examples: ROLE_POSITIONS_EXAMPLES })
  reorder(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @Body(RolePositionsPipe) entries: RolePositionDto[],
  ): Promise<RoleResponse[]> {
    return this.roles.reorder(caller.userId, guildId, entries);
  }

  @Get(':guild_id/roles/:role_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({ operationId: 'get_guild_role', summary: 'Get a role' })
  @ApiOkResponse({ type: RoleResponse, description: 'The role.' })
  @ApiErrors(ErrorCode.UnknownGuild, ErrorCode.UnknownRole)
  get(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @RoleId() roleId: string,
  ): Promise<RoleResponse> {
    return this.roles.get(caller.userId, guildId, roleId);
  }

  @Patch(':guild_id/roles/:role_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'update_guild_role',
    summary: 'Modify a role',
    description:
      'Needs MANAGE_ROLES and a role below the caller’s highest role (the owner: any); ' +
      'permission bits added must be held by the caller. @everyone keeps its name. ' +
      'GUILD_ROLE_UPDATE.',
  })
  @ApiOkResponse({ type: RoleResponse, description: 'The role as changed.' })
  @ApiErrors(...WRITE_ERRORS, ErrorCode.UnknownRole, [
    'permissions',
    FieldErrorCode.PermissionsInvalid,
  ])
  @ApiBody({ type: UpdateRoleDto, examples: UPDATE_ROLE_EXAMPLES })
  update(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @RoleId() roleId: string,
    @Body() dto: UpdateRoleDto,
  ): Promise<RoleResponse> {
    return this.roles.update(caller.userId, guildId, roleId, dto);
  }

  @Delete(':guild_id/roles/:role_id')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'delete_guild_role',
    summary: 'Delete a role',
    description:
      'Needs MANAGE_ROLES and a role below the caller’s highest role (the owner: any). ' +
      'Neither @everyone nor a bot’s managed role (400 INVALID_ROLE). Its members lose it ' +
      '(GUILD_MEMBER_UPDATE), then GUILD_ROLE_DELETE.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(...WRITE_ERRORS, ErrorCode.UnknownRole, ErrorCode.InvalidRole)
  delete(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @RoleId() roleId: string,
  ): Promise<void> {
    return this.roles.delete(caller.userId, guildId, roleId);
  }
}
