import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { ApiError, fieldError } from '../../../common/errors/api-error';
import { ErrorCode } from '../../../common/errors/error-code';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { parseSnowflake } from '../../../common/snowflake/snowflake';
import type { AuditContext } from '../../audit/audit-context';
import { AuditLog } from '../../audit/audit-log.service';
import { GuildMembersService } from '../../guilds/guild-members.service';
import type { BulkAddGuildMembersRequest } from './bulk-add-guild-members.dto';
import { toBulkOperationResponse, type BulkItemOutcome } from './bulk-operation.mapper';
import { BulkFailureCode, type BulkOperationResponse } from './bulk-operation.response';

/**
 * `POST /admin/bulk/add-guild-members`: adds up to 1000 users to a guild in one transaction with
 * one set-based statement and one audit entry. Existing members count as successful (and gain
 * the requested roles); unknown users fail with `UNKNOWN_USER`, bot users with `BOT_USER`, users
 * banned from the guild with `BANNED_FROM_GUILD`.
 */
@Injectable()
export class BulkMembersService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly audit: AuditLog,
    private readonly members: GuildMembersService,
  ) {}

  async addGuildMembers(
    dto: BulkAddGuildMembersRequest,
    audit: AuditContext,
  ): Promise<BulkOperationResponse> {
    // The DTO has validated every id.
    const guildId = parseSnowflake(dto.guild_id) as string;
    const userIds = [...new Set(dto.user_ids.map((id) => parseSnowflake(id) as string))];
    const requestedRoles = (dto.role_ids ?? []).map((id) => parseSnowflake(id) as string);

    const items = await this.db.transaction(async (m) => {
      // KEY SHARE: the guild cannot be deleted under the batch.
      const [guild] = await m.query<unknown[]>('SELECT 1 FROM guilds WHERE id = $1 FOR KEY SHARE', [
        guildId,
      ]);
      if (!guild) throw new ApiError(ErrorCode.UnknownGuild);
      const roleIds = await this.requireGuildRoles(m, guildId, requestedRoles);

      const rows = await this.members.addMany(m, guildId, userIds, roleIds);
      const byId = new Map(rows.map((r) => [r.user_id, r]));
      const outcomes: BulkItemOutcome[] = userIds.map((id) => {
        const row = byId.get(id);
        if (!row?.known) return { id, ok: false, error: BulkFailureCode.UnknownUser };
        if (row.bot) return { id, ok: false, error: BulkFailureCode.BotUser };
        if (row.banned) return { id, ok: false, error: BulkFailureCode.Banned };
        return { id, ok: true };
      });
      const added = rows.filter((r) => r.inserted).map((r) => r.user_id);
      const failed = outcomes.filter((o) => !o.ok).length;
      await this.audit.record(m, {
        actor: audit.actor,
        action: 'bulk.add_guild_members',
        targetType: 'guild',
        targetId: guildId,
        reason: audit.reason,
        ip: audit.ip,
        metadata: {
          requested: userIds.length,
          added: added.length,
          already_members: userIds.length - failed - added.length,
          roles_added_to_existing: rows.filter((r) => r.roles_added).length,
          failed,
          role_ids: roleIds,
          added_user_ids: added,
        },
      });
      return outcomes;
    });
    return toBulkOperationResponse(items);
  }

  /**
   * The distinct requested roles besides @everyone (the guild's id, implicit for every member);
   * a role of another guild (or none) is a 400 on `role_ids.<index>`.
   */
  private async requireGuildRoles(
    m: EntityManager,
    guildId: string,
    requested: string[],
  ): Promise<string[]> {
    const roleIds = [...new Set(requested)].filter((id) => id !== guildId);
    if (roleIds.length === 0) return [];
    const found = await m.query<Array<{ id: string }>>(
      'SELECT id::text AS id FROM guild_roles WHERE guild_id = $1 AND id = ANY($2::bigint[])',
      [guildId, roleIds],
    );
    const known = new Set(found.map((r) => r.id));
    const errors = requested.flatMap((id, i) =>
      id === guildId || known.has(id)
        ? []
        : [fieldError(`role_ids.${i}`, FieldErrorCode.UnknownRole)],
    );
    if (errors.length > 0) throw ApiError.form(errors);
    return roleIds;
  }
}
