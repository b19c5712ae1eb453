import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ErrorCode } from '../../../common/errors/error-code';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { ApiErrors } from '../../../common/openapi/api-errors.decorator';
import { RequestAudit, type AuditContext } from '../../audit/audit-context';
import { AdminAcl } from '../acls';
import { AdminRoute } from '../admin-route.decorator';
import { BulkAddGuildMembersRequest } from './bulk-add-guild-members.dto';
import { BulkMembersService } from './bulk-members.service';
import { BulkOperationResponse } from './bulk-operation.response';
import { EXAMPLE } from '../../../common/openapi/examples';

@ApiTags('Admin')
@Controller('admin/bulk')
export class BulkController {
  constructor(private readonly members: BulkMembersService) {}

  @Post('add-guild-members')
  @HttpCode(200)
  @AdminRoute({
    operationId: 'bulk_add_guild_members',
    summary: 'Add up to 1000 users to a guild',
    body: {
      type: BulkAddGuildMembersRequest,
      examples: {
        members: {
          summary: 'Add two users',
          value: { guild_id: EXAMPLE.guildId, user_ids: [EXAMPLE.userId, EXAMPLE.otherUserId] },
        },
        with_roles: {
          summary: 'Add a user with a role of the guild',
          value: {
            guild_id: EXAMPLE.guildId,
            user_ids: [EXAMPLE.userId],
            role_ids: [EXAMPLE.roleId],
          },
        },
      },
    },
    acl: AdminAcl.BulkAddGuildMembers,
    errors: [ErrorCode.UnknownGuild],
    bucket: 'admin:bulk',
    audited: true,
    description:
      'Existing members count as successful and gain the given `role_ids` they lack; unknown ' +
      'users fail with `UNKNOWN_USER`, bot users with `BOT_USER` (bots join through the OAuth2 ' +
      '`bot` install). Every role must belong to the guild (400 `UNKNOWN_ROLE` on ' +
      '`role_ids.<n>`). One transaction and one audit entry `bulk.add_guild_members`.',
  })
  @ApiOkResponse({
    type: BulkOperationResponse,
    description: 'The users added (or already members) and those that failed, with why.',
  })
  @ApiErrors(['role_ids.0', FieldErrorCode.UnknownRole])
  addGuildMembers(
    @Body() dto: BulkAddGuildMembersRequest,
    @RequestAudit() audit: AuditContext,
  ): Promise<BulkOperationResponse> {
    return this.members.addGuildMembers(dto, audit);
  }
}
