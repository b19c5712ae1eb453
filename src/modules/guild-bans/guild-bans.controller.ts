import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
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
import { ParseSnowflakePipe } from '../../common/snowflake/parse-snowflake.pipe';
import { RequestAudit, type AuditContext } from '../audit/audit-context';
import { ApiAuditReason } from '../audit/audit-reason.decorator';
import { CreateBanDto } from './dto/create-ban.dto';
import { ListBansQueryDto } from './dto/list-bans.dto';
import { GuildBanResponse } from './guild-ban.response';
import { CREATE_BAN_EXAMPLES } from './guild-bans.examples';
import { ModerationService } from './moderation.service';
import { GuildId } from '../../common/snowflake/id-params';

/** Discord's guild bans: BAN_MEMBERS for every route; GUILD_BAN_ADD/REMOVE (GUILD_MODERATION). */
@ApiTags('Guilds')
@Controller('guilds')
export class GuildBansController {
  constructor(private readonly moderation: ModerationService) {}

  @Get(':guild_id/bans')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'list_guild_bans',
    summary: 'List bans',
    description:
      'Bans in user id order: `limit` (1-1000, default 1000) after the user id `after`, or the ' +
      'last ones before `before`. Needs BAN_MEMBERS.',
  })
  @ApiOkResponse({ type: [GuildBanResponse], description: 'The bans.' })
  @ApiErrors(ErrorCode.UnknownGuild, ErrorCode.MissingPermissions)
  list(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @Query() query: ListBansQueryDto,
  ): Promise<GuildBanResponse[]> {
    return this.moderation.list(caller.userId, guildId, {
      limit: query.limit ?? 1000,
      before: query.before,
      after: query.after,
    });
  }

  @Get(':guild_id/bans/:user_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'get_guild_ban',
    summary: 'Get a ban',
    description: 'Needs BAN_MEMBERS.',
  })
  @ApiOkResponse({ type: GuildBanResponse, description: 'The ban.' })
  @ApiErrors(ErrorCode.UnknownGuild, ErrorCode.MissingPermissions, ErrorCode.UnknownBan)
  get(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @Param('user_id', new ParseSnowflakePipe(ErrorCode.UnknownBan)) userId: string,
  ): Promise<GuildBanResponse> {
    return this.moderation.get(caller.userId, guildId, userId);
  }

  @Put(':guild_id/bans/:user_id')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'create_guild_ban',
    summary: 'Ban a user',
    description:
      'Needs BAN_MEMBERS; a member must rank below the caller’s highest role (the owner bans ' +
      'anyone else; nobody bans the owner or themselves). A member is removed ' +
      '(GUILD_MEMBER_REMOVE); the ban (GUILD_BAN_ADD) refuses them every way of joining until it ' +
      'is lifted. The reason is the `X-Audit-Log-Reason` header. `delete_message_seconds` ' +
      '(0-604800) deletes the user’s messages of that many past seconds in the guild ' +
      '(MESSAGE_DELETE_BULK per channel). Banning a banned user keeps the ban as it was.',
  })
  @ApiAuditReason()
  @ApiNoContentResponse({ description: 'Banned.' })
  @ApiErrors(
    ErrorCode.UnknownGuild,
    ErrorCode.UnknownUser,
    ErrorCode.MissingPermissions,
    ['delete_message_seconds', FieldErrorCode.NumberTypeMax],
    ['X-Audit-Log-Reason', FieldErrorCode.BaseTypeMaxLength],
  )
  @ApiBody({ type: CreateBanDto, examples: CREATE_BAN_EXAMPLES, required: false })
  async ban(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @Param('user_id', new ParseSnowflakePipe(ErrorCode.UnknownUser)) userId: string,
    @Body() dto: CreateBanDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    await this.moderation.ban(
      caller.userId,
      guildId,
      userId,
      audit.reason,
      dto.delete_message_seconds ?? 0,
    );
  }

  @Delete(':guild_id/bans/:user_id')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'remove_guild_ban',
    summary: 'Lift a ban',
    description: 'Needs BAN_MEMBERS. GUILD_BAN_REMOVE; the user may join again.',
  })
  @ApiNoContentResponse({ description: 'Lifted.' })
  @ApiErrors(ErrorCode.UnknownGuild, ErrorCode.MissingPermissions, ErrorCode.UnknownBan)
  unban(
    @CurrentCaller() caller: Caller,
    @GuildId() guildId: string,
    @Param('user_id', new ParseSnowflakePipe(ErrorCode.UnknownBan)) userId: string,
  ): Promise<void> {
    return this.moderation.unban(caller.userId, guildId, userId);
  }
}
