import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { ApiErrors } from '../../../common/openapi/api-errors.decorator';
import { AdminAcl } from '../acls';
import { AdminRoute } from '../admin-route.decorator';
import { ListAuditLogsRequest, SearchAuditLogsRequest } from './audit-log.dto';
import { AuditLogsListResponseSchema } from './audit-log.response';
import { AdminAuditLogsService } from './audit-logs.service';

@ApiTags('Admin')
@Controller('admin/audit-logs')
export class AdminAuditLogsController {
  constructor(private readonly auditLogs: AdminAuditLogsService) {}

  @Post()
  @HttpCode(200)
  @AdminRoute({
    operationId: 'list_audit_logs',
    body: {
      type: ListAuditLogsRequest,
      examples: {
        latest: { summary: 'The latest entries', value: { limit: 50 } },
        filtered: {
          summary: 'Ban changes in November',
          value: {
            from: '2026-11-01T00:00:00Z',
            to: '2026-12-01T00:00:00Z',
            action: ['ban.ip.add', 'ban.ip.remove'],
            limit: 50,
          },
        },
      },
    },
    summary: 'List audit log entries, newest first',
    acl: AdminAcl.AuditLogView,
    description:
      'Filters combine with AND. Page with `next_cursor` (or `offset`); `total` counts every ' +
      'entry the filters match.',
  })
  @ApiOkResponse({
    type: AuditLogsListResponseSchema,
    description: 'A page of entries, the total and the next cursor.',
  })
  @ApiErrors(
    ['from', FieldErrorCode.BaseTypeFormat],
    ['cursor', FieldErrorCode.BaseTypeFormat],
    ['cursor', FieldErrorCode.BaseTypeInvalid],
  )
  list(@Body() dto: ListAuditLogsRequest): Promise<AuditLogsListResponseSchema> {
    return this.auditLogs.list(dto);
  }

  @Post('search')
  @HttpCode(200)
  @AdminRoute({
    operationId: 'search_audit_logs',
    body: {
      type: SearchAuditLogsRequest,
      examples: {
        words: { summary: 'Words in reasons, actions or targets', value: { query: 'spam' } },
        phrase: {
          summary: 'A phrase, excluding a word, on one target type',
          value: { query: '"credential stuffing" -test', target_type: 'ip', limit: 20 },
        },
      },
    },
    summary: 'Full-text search of the audit log, ranked',
    acl: AdminAcl.AuditLogView,
    description:
      '`query` is matched (PostgreSQL `websearch_to_tsquery`, English) against the action, ' +
      'reason, target and metadata values; the same filters as the list apply. Ranked by ' +
      '`ts_rank`, newest first among equals.',
  })
  @ApiOkResponse({
    type: AuditLogsListResponseSchema,
    description: 'A page of matching entries, best first, and the next cursor.',
  })
  @ApiErrors(
    ['from', FieldErrorCode.BaseTypeFormat],
    ['cursor', FieldErrorCode.BaseTypeFormat],
    ['cursor', FieldErrorCode.BaseTypeInvalid],
  )
  search(@Body() dto: SearchAuditLogsRequest): Promise<AuditLogsListResponseSchema> {
    return this.auditLogs.search(dto);
  }
}
