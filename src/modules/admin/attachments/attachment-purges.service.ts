import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../../../common/errors/api-error';
import { ErrorCode } from '../../../common/errors/error-code';
import { parseSnowflake } from '../../../common/snowflake/snowflake';
import type { AuditContext } from '../../audit/audit-context';
import { AuditLog } from '../../audit/audit-log.service';
import { AttachmentPurge } from '../../guilds/attachments/attachment-purge';
import { toPurgeAttachmentsResponse } from './purge-attachments.mapper';
import type { PurgeAttachmentsResponseSchema } from './purge-attachments.response';

export type AttachmentPurgeSubject = 'user' | 'guild';

/**
 * `POST /admin/attachments/purge/user|guild`: a user's uploads everywhere, or every file of a
 * guild, taken off their messages and sent to deletion (AttachmentPurge), with the audit entry,
 * in one transaction. The blobs are deleted by the sweep job that commits with it: the answer
 * does not wait for storage.
 */
@Injectable()
export class AttachmentPurgesService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly purges: AttachmentPurge,
    private readonly audit: AuditLog,
  ) {}

  async purge(
    subject: AttachmentPurgeSubject,
    rawId: string | number,
    audit: AuditContext,
  ): Promise<PurgeAttachmentsResponseSchema> {
    const id = parseSnowflake(rawId);
    const unknown = subject === 'user' ? ErrorCode.UnknownUser : ErrorCode.UnknownGuild;
    if (!id) throw new ApiError(unknown);
    const outcome = await this.db.transaction(async (m) => {
      const table = subject === 'user' ? 'users' : 'guilds';
      // The subject stays while its files are purged (its deletion waits for the commit).
      const found = await m.query<unknown[]>(`SELECT 1 FROM ${table} WHERE id = $1 FOR KEY SHARE`, [
        id,
      ]);
      if (found.length === 0) throw new ApiError(unknown);
      const done =
        subject === 'user' ? await this.purges.byUploader(m, id) : await this.purges.byGuild(m, id);
      await this.audit.record(m, {
        actor: audit.actor,
        action: `attachment.purge.${subject}`,
        targetType: subject,
        targetId: id,
        reason: audit.reason,
        ip: audit.ip,
        metadata: { attachments: done.attachments, bytes: done.bytes, messages: done.messages },
      });
      return done;
    });
    return toPurgeAttachmentsResponse(outcome);
  }
}
