import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentCaller } from '../../../common/auth/auth.decorator';
import type { AdminCaller } from '../../../common/auth/caller';
import { ErrorCode } from '../../../common/errors/error-code';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { ApiErrors } from '../../../common/openapi/api-errors.decorator';
import { ParseSnowflakePipe } from '../../../common/snowflake/parse-snowflake.pipe';
import { RequestAudit, type AuditContext } from '../../audit/audit-context';
import { AdminAcl } from '../acls';
import { AdminRoute } from '../admin-route.decorator';
import { CreateAdminApiKeyRequest } from './admin-api-key.dto';
import {
  CreateAdminApiKeyResponse,
  DeleteApiKeyResponse,
  ListAdminApiKeyResponse,
} from './admin-api-key.response';
import { AdminApiKeysService } from './admin-api-keys.service';

@ApiTags('Admin')
@Controller('admin/api-keys')
export class AdminApiKeysController {
  constructor(private readonly keys: AdminApiKeysService) {}

  @Post()
  @HttpCode(200)
  @AdminRoute({
    operationId: 'create_admin_api_key',
    body: {
      type: CreateAdminApiKeyRequest,
      examples: {
        auditors: {
          summary: 'A read-only key for 90 days',
          value: { name: 'auditors', expires_in_days: 90, acls: ['audit_log:view'] },
        },
        bans: {
          summary: 'A moderation key that never expires',
          value: { name: 'moderation', acls: ['ban:ip:add', 'ban:ip:check', 'ban:ip:remove'] },
        },
      },
    },
    summary: 'Create an admin API key (shown once)',
    acl: AdminAcl.ApiKeyManage,
    audited: true,
    description:
      'The new key may only hold ACLs the calling key holds (403 `MISSING_ACL` otherwise), and ' +
      'expires no later than the calling key (without `expires_in_days`, when it does). The ' +
      '`key` field is returned this once; only its SHA-256 is stored.',
  })
  @ApiOkResponse({
    type: CreateAdminApiKeyResponse,
    description: 'The new key, with its secret `key` (shown only this once).',
  })
  @ApiErrors(['acls.0', FieldErrorCode.InvalidAcl])
  create(
    @CurrentCaller() caller: AdminCaller,
    @Body() dto: CreateAdminApiKeyRequest,
    @RequestAudit() audit: AuditContext,
  ): Promise<CreateAdminApiKeyResponse> {
    return this.keys.create(caller, dto, audit);
  }

  @Get()
  @AdminRoute({
    operationId: 'list_admin_api_keys',
    summary: "List the calling key owner's API keys",
    acl: AdminAcl.ApiKeyManage,
    description:
      'The keys of the calling key’s owner that the calling key could have made: those whose ' +
      'ACLs it holds all of (a narrow key does not see wider ones).',
  })
  @ApiOkResponse({
    type: [ListAdminApiKeyResponse],
    description: 'The keys, without their secrets.',
  })
  list(@CurrentCaller() caller: AdminCaller): Promise<ListAdminApiKeyResponse[]> {
    return this.keys.list(caller);
  }

  @Delete(':keyId')
  @AdminRoute({
    operationId: 'delete_admin_api_key',
    errors: [ErrorCode.AdminApiKeyNotFound],
    summary: 'Revoke an admin API key (immediate, irreversible)',
    acl: AdminAcl.ApiKeyManage,
    audited: true,
    description:
      'Only a key of the calling key’s owner whose ACLs the calling key holds all of (403 ' +
      '`MISSING_ACL` with `missing_acls` otherwise): a narrow key cannot revoke a wider one.',
  })
  @ApiOkResponse({ type: DeleteApiKeyResponse, description: 'Revoked.' })
  delete(
    @CurrentCaller() caller: AdminCaller,
    @Param('keyId', new ParseSnowflakePipe(ErrorCode.AdminApiKeyNotFound)) keyId: string,
    @RequestAudit() audit: AuditContext,
  ): Promise<DeleteApiKeyResponse> {
    return this.keys.delete(caller, keyId, audit);
  }
}
