import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RequestAudit, type AuditContext } from '../../audit/audit-context';
import { AdminAcl } from '../acls';
import { AdminRoute } from '../admin-route.decorator';
import { AssetPurgeService } from './asset-purge.service';
import { PurgeGuildAssetsRequest } from './purge-guild-assets.dto';
import { PurgeGuildAssetsResponseSchema } from './purge-guild-assets.response';
import { EXAMPLE } from '../../../common/openapi/examples';

@ApiTags('Admin')
@Controller('admin/assets')
export class AssetsController {
  constructor(private readonly purges: AssetPurgeService) {}

  @Post('purge')
  @HttpCode(200)
  @AdminRoute({
    operationId: 'purge_guild_assets',
    summary: "Delete guilds' stored images (destructive)",
    body: {
      type: PurgeGuildAssetsRequest,
      examples: {
        guild: { summary: "One guild's images", value: { guild_ids: [EXAMPLE.guildId] } },
      },
    },
    acl: AdminAcl.AssetPurge,
    audited: true,
    description:
      "Deletes each guild's icon, banner and webhook avatars (and former versions still stored) " +
      'and clears the references. Answers one result per guild: an unknown guild is reported ' +
      'with `errors: ["UNKNOWN_GUILD"]`, a file that could not be deleted with ' +
      '`DELETE_FAILED: <file key>`. Each guild gets one audit entry `asset.purge`.',
  })
  @ApiOkResponse({ type: PurgeGuildAssetsResponseSchema, description: 'One result per guild.' })
  purge(
    @Body() dto: PurgeGuildAssetsRequest,
    @RequestAudit() audit: AuditContext,
  ): Promise<PurgeGuildAssetsResponseSchema> {
    return this.purges.purge(dto, audit);
  }
}
