import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../../../common/errors/api-error';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { parseSnowflake } from '../../../common/snowflake/snowflake';
import type { AuditLogEntryEntity } from '../../audit/audit-log.entity';
import { decodeAuditCursor, encodeAuditCursor, type AuditCursor } from './audit-log-cursor';
import type { ListAuditLogsRequest, SearchAuditLogsRequest } from './audit-log.dto';
import { toAuditLogEntry } from './audit-log.mapper';
import type { AuditLogsListResponseSchema } from './audit-log.response';

const DEFAULT_LIMIT = 50;

// Columns under the entity's property names, so rows map with the entity's mapper.
const COLUMNS = `e.id::text AS id, e.actor_type AS "actorType", e.actor_id::text AS "actorId",
  e.actor_user_id::text AS "actorUserId", e.action, e.target_type AS "targetType",
  e.target_id AS "targetId", e.reason, e.metadata, host(e.ip) AS ip, e.created_at AS "createdAt"`;

/** SQL conditions and their parameters, numbered as they are added. */
class Where {
  readonly conditions: string[] = [];
  readonly params: unknown[] = [];

  add(sql: (p: string) => string, value: unknown): void {
    this.params.push(value);
    this.conditions.push(sql(`$${this.params.length}`));
  }

  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  get sql(): string {
    return this.conditions.length ? `WHERE ${this.conditions.join(' AND ')}` : '';
  }
}

/**
 * Reading the audit log: `POST /admin/audit-logs` (newest first, keyset pages on the
 * time-ordered id) and `POST /admin/audit-logs/search` (PostgreSQL full text over the generated
 * `search` tsvector, GIN-indexed; ranked, offset pages). Same SQL on the embedded server.
 */
@Injectable()
export class AdminAuditLogsService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async list(dto: ListAuditLogsRequest): Promise<AuditLogsListResponseSchema> {
    const cursor = this.cursorOf(dto, 'list');
    const limit = dto.limit ?? DEFAULT_LIMIT;
    const page = this.filters(dto);
    const counted = this.count(page.sql, [...page.params]);
    if (cursor?.kind === 'list') page.add((p) => `e.id < ${p}`, cursor.beforeId);
    const offset = cursor ? 0 : (dto.offset ?? 0);
    const [rows, total] = await Promise.all([
      this.db.query<AuditLogEntryEntity[]>(
        `SELECT ${COLUMNS} FROM audit_log_entries e ${page.sql}
          ORDER BY e.id DESC LIMIT ${page.param(limit + 1)} OFFSET ${page.param(offset)}`,
        page.params,
      ),
      counted,
    ]);
    const more = rows.length > limit;
    const entries = rows.slice(0, limit);
    const last = entries[entries.length - 1];
    return {
      entries: entries.map(toAuditLogEntry),
      total,
      next_cursor: more && last ? encodeAuditCursor({ kind: 'list', beforeId: last.id }) : null,
    };
  }

  async search(dto: SearchAuditLogsRequest): Promise<AuditLogsListResponseSchema> {
    const cursor = this.cursorOf(dto, 'search');
    const limit = dto.limit ?? DEFAULT_LIMIT;
    const offset = cursor?.kind === 'search' ? cursor.offset : (dto.offset ?? 0);
    // The query is parameter $1, used by the match and the rank alike.
    const where = new Where();
    where.add((p) => `e.search @@ websearch_to_tsquery('english', ${p})`, dto.query);
    const filters = this.filters(dto, where);
    const counted = this.count(filters.sql, [...filters.params]);
    const [rows, total] = await Promise.all([
      this.db.query<AuditLogEntryEntity[]>(
        `SELECT ${COLUMNS} FROM audit_log_entries e ${filters.sql}
          ORDER BY ts_rank(e.search, websearch_to_tsquery('english', $1)) DESC, e.id DESC
          LIMIT ${filters.param(limit + 1)} OFFSET ${filters.param(offset)}`,
        filters.params,
      ),
      counted,
    ]);
    const more = rows.length > limit;
    const entries = rows.slice(0, limit);
    return {
      entries: entries.map(toAuditLogEntry),
      total,
      next_cursor: more
        ? encodeAuditCursor({ kind: 'search', offset: offset + entries.length })
        : null,
    };
  }

  // `total` counts what the filters match, whatever the page.
  private async count(whereSql: string, params: unknown[]): Promise<number> {
    const [row] = await this.db.query<Array<{ n: string }>>(
      `SELECT count(*)::text AS n FROM audit_log_entries e ${whereSql}`,
      params,
    );
    return Number(row?.n ?? 0);
  }

  private filters(dto: ListAuditLogsRequest, where = new Where()): Where {
    if (dto.from !== undefined)
      where.add((p) => `e.created_at >= ${p}`, this.date('from', dto.from));
    if (dto.to !== undefined) where.add((p) => `e.created_at < ${p}`, this.date('to', dto.to));
    if (dto.action !== undefined) {
      const actions = [...new Set(Array.isArray(dto.action) ? dto.action : [dto.action])];
      where.add((p) => `e.action = ANY(${p}::varchar[])`, actions);
    }
    if (dto.actor_id !== undefined)
      where.add((p) => `e.actor_id = ${p}`, parseSnowflake(dto.actor_id));
    if (dto.target_type !== undefined) where.add((p) => `e.target_type = ${p}`, dto.target_type);
    if (dto.target_id !== undefined) where.add((p) => `e.target_id = ${p}`, dto.target_id);
    return where;
  }

  private date(field: string, value: string): Date {
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) {
      throw ApiError.field(
        field,
        FieldErrorCode.BaseTypeFormat,
        `${field} must be an ISO 8601 date`,
      );
    }
    return new Date(ms);
  }

  private cursorOf(dto: ListAuditLogsRequest, kind: AuditCursor['kind']): AuditCursor | null {
    if (dto.cursor === undefined) return null;
    if (dto.offset !== undefined) {
      throw ApiError.field(
        'cursor',
        FieldErrorCode.BaseTypeInvalid,
        'Give cursor or offset, not both.',
      );
    }
    const cursor = decodeAuditCursor(dto.cursor);
    if (!cursor || cursor.kind !== kind) {
      throw ApiError.field(
        'cursor',
        FieldErrorCode.BaseTypeFormat,
        'Not a cursor of this listing: pass next_cursor of the previous page unchanged.',
      );
    }
    return cursor;
  }
}
