import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ErrorCode } from '../../../common/errors/error-code';
import { EXAMPLE } from '../../../common/openapi/examples';
import { RequestAudit, type AuditContext } from '../../audit/audit-context';
import { AdminAcl } from '../acls';
import { AdminRoute } from '../admin-route.decorator';
import { AttachmentPurgesService } from './attachment-purges.service';
import { PurgeGuildAttachmentsRequest, PurgeUserAttachmentsRequest } from './purge-attachments.dto';
import { PurgeAttachmentsResponseSchema } from './purge-attachments.response';

const EFFECT =
  'Each message loses those files from `attachments` and is announced with `MESSAGE_UPDATE`; ' +
  'uploads not attached yet go too. The files are deleted from storage by the attachment ' +
  'sweep job right after the answer; the counts say what was sent to deletion (a second purge ' +
  'counts none of it).';

@ApiTags('Admin')
@Controller('admin/attachments')
export class AdminAttachmentsController {
  constructor(private readonly purges: AttachmentPurgesService) {}

  @Post('purge/user')
  @HttpCode(200)
  @AdminRoute({
    operationId: 'purge_user_attachments',
    errors: [ErrorCode.UnknownUser],
    summary: 'Delete every file a user uploaded (destructive)',
    body: {
      type: PurgeUserAttachmentsRequest,
      examples: { user: { summary: 'A user', value: { user_id: EXAMPLE.userId } } },
    },
    acl: AdminAcl.AttachmentPurge,
    audited: true,
    description:
      `Deletes the files the user uploaded, in every guild. ${EFFECT} Unknown user → 404 ` +
      '`UNKNOWN_USER`. Audit entry `attachment.purge.user`.',
  })
  @ApiOkResponse({ type: PurgeAttachmentsResponseSchema, description: 'What the purge took.' })
  purgeUser(
    @Body() dto: PurgeUserAttachmentsRequest,
    @RequestAudit() audit: AuditContext,
  ): Promise<PurgeAttachmentsResponseSchema> {
    return this.purges.purge('user', dto.user_id, audit);
  }

  @Post('purge/guild')
  @HttpCode(200)
  @AdminRoute({
    operationId: 'purge_guild_attachments',
    errors: [ErrorCode.UnknownGuild],
    summary: "Delete every file of a guild's messages (destructive)",
    body: {
      type: PurgeGuildAttachmentsRequest,
      examples: { guild: { summary: 'A guild', value: { guild_id: EXAMPLE.guildId } } },
    },
    acl: AdminAcl.AttachmentPurge,
    audited: true,
    description:
      `Deletes every file posted in the guild's channels, whoever uploaded it. ${EFFECT} ` +
      'Unknown guild → 404 `UNKNOWN_GUILD`. Audit entry `attachment.purge.guild`.',
  })
  @ApiOkResponse({ type: PurgeAttachmentsResponseSchema, description: 'What the purge took.' })
  purgeGuild(
    @Body() dto: PurgeGuildAttachmentsRequest,
    @RequestAudit() audit: AuditContext,
  ): Promise<PurgeAttachmentsResponseSchema> {
    return this.purges.purge('guild', dto.guild_id, audit);
  }
}
