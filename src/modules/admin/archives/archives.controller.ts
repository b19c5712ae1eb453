import { applyDecorators, Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentCaller } from '../../../common/auth/auth.decorator';
import type { AdminCaller } from '../../../common/auth/caller';
import { ErrorCode } from '../../../common/errors/error-code';
import { ParseSnowflakePipe } from '../../../common/snowflake/parse-snowflake.pipe';
import { RequestAudit, type AuditContext } from '../../audit/audit-context';
import { AdminAcl } from '../acls';
import { AdminRoute } from '../admin-route.decorator';
import {
  ListArchivesRequest,
  TriggerGuildArchiveRequest,
  TriggerUserArchiveRequest,
} from './archive.dto';
import {
  AdminArchiveResponseSchema,
  DownloadUrlResponseSchema,
  GetArchiveResponseSchema,
  ListArchivesResponseSchema,
} from './archive.response';
import { ArchivesService } from './archives.service';
import { EXAMPLE } from '../../../common/openapi/examples';

/** List, details and download: `archive:view_all`, or a trigger ACL (then only the key's own archives). */
const VIEW_ACLS = [
  AdminAcl.ArchiveViewAll,
  AdminAcl.ArchiveTriggerUser,
  AdminAcl.ArchiveTriggerGuild,
];
const VISIBILITY =
  'A key with `archive:view_all` sees every archive; a key with only a trigger ACL sees the ' +
  'archives it requested itself, of the subject types it may trigger.';

/** Swagger path parameters of the two GET routes. */
const ArchivePathParams = () =>
  applyDecorators(
    ApiParam({ name: 'subjectType', enum: ['user', 'guild'] }),
    ApiParam({ name: 'subjectId', type: String, description: 'The user or guild id' }),
    ApiParam({ name: 'archiveId', type: String }),
  );

@ApiTags('Admin')
@Controller('admin/archives')
export class ArchivesController {
  constructor(private readonly archives: ArchivesService) {}

  @Post('user')
  @HttpCode(200)
  @AdminRoute({
    operationId: 'trigger_user_archive',
    errors: [ErrorCode.UnknownUser],
    summary: "Export a user's data (queued zip archive)",
    body: {
      type: TriggerUserArchiveRequest,
      examples: { user: { summary: 'A user', value: { user_id: EXAMPLE.userId } } },
    },
    acl: AdminAcl.ArchiveTriggerUser,
    audited: true,
    description:
      'Queues a zip of the user’s profile, sessions (metadata), guild memberships, messages, ' +
      'applications and OAuth2 authorizations, built in the background; poll its details for ' +
      '`status`. Unknown user → 404 `UNKNOWN_USER`.',
  })
  @ApiOkResponse({ type: AdminArchiveResponseSchema, description: 'The queued archive.' })
  triggerUser(
    @CurrentCaller() caller: AdminCaller,
    @Body() dto: TriggerUserArchiveRequest,
    @RequestAudit() audit: AuditContext,
  ): Promise<AdminArchiveResponseSchema> {
    return this.archives.trigger(caller, 'user', dto.user_id, audit);
  }

  @Post('guild')
  @HttpCode(200)
  @AdminRoute({
    operationId: 'trigger_guild_archive',
    errors: [ErrorCode.UnknownGuild],
    summary: "Export a guild's data (queued zip archive)",
    body: {
      type: TriggerGuildArchiveRequest,
      examples: { guild: { summary: 'A guild', value: { guild_id: EXAMPLE.guildId } } },
    },
    acl: AdminAcl.ArchiveTriggerGuild,
    audited: true,
    description:
      'Queues a zip of the guild, its channels, roles, members, messages and webhooks (without ' +
      'tokens), built in the background. Unknown guild → 404 `UNKNOWN_GUILD`.',
  })
  @ApiOkResponse({ type: AdminArchiveResponseSchema, description: 'The queued archive.' })
  triggerGuild(
    @CurrentCaller() caller: AdminCaller,
    @Body() dto: TriggerGuildArchiveRequest,
    @RequestAudit() audit: AuditContext,
  ): Promise<AdminArchiveResponseSchema> {
    return this.archives.trigger(caller, 'guild', dto.guild_id, audit);
  }

  @Post('list')
  @HttpCode(200)
  @AdminRoute({
    operationId: 'list_archives',
    body: {
      type: ListArchivesRequest,
      examples: {
        all: { summary: 'Current archives', value: { limit: 50 } },
        user: {
          summary: "A user's archives, expired ones too",
          value: { subject_type: 'user', subject_id: '1300000000000000000', include_expired: true },
        },
      },
    },
    summary: 'List archives (newest first, paginated)',
    acl: VIEW_ACLS,
    description: VISIBILITY,
  })
  @ApiOkResponse({
    type: ListArchivesResponseSchema,
    description: 'The archives the key may see, newest first.',
  })
  list(
    @CurrentCaller() caller: AdminCaller,
    @Body() dto: ListArchivesRequest,
  ): Promise<ListArchivesResponseSchema> {
    return this.archives.list(caller, dto);
  }

  @Get(':subjectType/:subjectId/:archiveId')
  @AdminRoute({
    operationId: 'get_archive_details',
    errors: [ErrorCode.UnknownArchive],
    summary: "An archive's metadata (status, progress, expiry, file)",
    acl: VIEW_ACLS,
    description: `${VISIBILITY} An archive the key may not see is 404 \`UNKNOWN_ARCHIVE\`.`,
  })
  @ApiOkResponse({ type: GetArchiveResponseSchema, description: 'The archive’s metadata.' })
  @ArchivePathParams()
  details(
    @CurrentCaller() caller: AdminCaller,
    @Param('subjectType') subjectType: string,
    @Param('subjectId', new ParseSnowflakePipe(ErrorCode.UnknownArchive)) subjectId: string,
    @Param('archiveId', new ParseSnowflakePipe(ErrorCode.UnknownArchive)) archiveId: string,
  ): Promise<GetArchiveResponseSchema> {
    return this.archives.details(caller, subjectType, subjectId, archiveId);
  }

  @Get(':subjectType/:subjectId/:archiveId/download')
  @AdminRoute({
    operationId: 'get_archive_download_url',
    errors: [ErrorCode.UnknownArchive, ErrorCode.ArchiveNotReady, ErrorCode.ArchiveExpired],
    summary: 'A signed, time-limited download link to a completed archive',
    acl: VIEW_ACLS,
    audited: true,
    description:
      `${VISIBILITY} The link works without any \`Authorization\` header until \`expires_at\` ` +
      '(24 h by default, never past the archive’s own expiry). Not completed yet (or failed) → ' +
      '400 `ARCHIVE_NOT_READY`; expired → 400 `ARCHIVE_EXPIRED`. Issuing a link is audited.',
  })
  @ApiOkResponse({
    type: DownloadUrlResponseSchema,
    description: 'The signed download link and when it expires.',
  })
  @ArchivePathParams()
  downloadUrl(
    @CurrentCaller() caller: AdminCaller,
    @Param('subjectType') subjectType: string,
    @Param('subjectId', new ParseSnowflakePipe(ErrorCode.UnknownArchive)) subjectId: string,
    @Param('archiveId', new ParseSnowflakePipe(ErrorCode.UnknownArchive)) archiveId: string,
    @RequestAudit() audit: AuditContext,
  ): Promise<DownloadUrlResponseSchema> {
    return this.archives.downloadUrl(caller, subjectType, subjectId, archiveId, audit);
  }
}
