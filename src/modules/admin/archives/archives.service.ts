import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Readable } from 'node:stream';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import { hasAcl } from '../../../common/auth/admin-acl.guard';
import type { AdminCaller } from '../../../common/auth/caller';
import { ApiError } from '../../../common/errors/api-error';
import { ErrorCode } from '../../../common/errors/error-code';
import { SnowflakeService } from '../../../common/snowflake/snowflake.service';
import { parseSnowflake } from '../../../common/snowflake/snowflake';
import { AppConfig } from '../../../config/app.config';
import { JobsService } from '../../../infra/jobs/jobs.service';
import { BlobStorage } from '../../../infra/storage/blob-storage';
import type { AuditContext } from '../../audit/audit-context';
import { AuditLog } from '../../audit/audit-log.service';
import { AdminAcl } from '../acls';
import { ARCHIVE_QUEUE, type ArchiveJobData } from './archive-builder';
import { ArchiveLinks } from './archive-links';
import type { ListArchivesRequest } from './archive.dto';
import { ArchiveEntity, type ArchiveSubjectType } from './archive.entity';
import { archiveStatus, toArchiveResponse } from './archive.mapper';
import type {
  AdminArchiveResponseSchema,
  DownloadUrlResponseSchema,
  ListArchivesResponseSchema,
} from './archive.response';

const DAY_MS = 86_400_000;
const DEFAULT_LIMIT = 50;

const TRIGGER_ACL: Record<ArchiveSubjectType, string> = {
  user: AdminAcl.ArchiveTriggerUser,
  guild: AdminAcl.ArchiveTriggerGuild,
};

/** A zip ready to stream to a signed link's holder. */
export interface ArchiveDownload {
  stream: Readable;
  size: number;
  filename: string;
}

/**
 * Archives: triggering (row + job + audit entry in one transaction), listing, details, signed
 * download links, and the download itself.
 *
 * Visibility: a key holding `archive:view_all` sees every archive; any other key sees only the
 * archives it requested itself, of the subject types whose trigger ACL it holds. An archive a key
 * may not see answers 404 `UNKNOWN_ARCHIVE`, exactly like one that does not exist.
 */
@Injectable()
export class ArchivesService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly snowflakes: SnowflakeService,
    private readonly jobs: JobsService,
    private readonly audit: AuditLog,
    private readonly links: ArchiveLinks,
    private readonly blobs: BlobStorage,
    private readonly config: AppConfig,
  ) {}

  /** `POST /admin/archives/user|guild`: a queued archive whose build job commits with it. */
  async trigger(
    caller: AdminCaller,
    subjectType: ArchiveSubjectType,
    rawSubjectId: string | number,
    audit: AuditContext,
  ): Promise<AdminArchiveResponseSchema> {
    const subjectId = parseSnowflake(rawSubjectId);
    const unknown = subjectType === 'user' ? ErrorCode.UnknownUser : ErrorCode.UnknownGuild;
    if (!subjectId) throw new ApiError(unknown);
    const archive = await this.db.transaction(async (manager) => {
      const table = subjectType === 'user' ? 'users' : 'guilds';
      const found = await manager.query<unknown[]>(`SELECT 1 FROM ${table} WHERE id = $1`, [
        subjectId,
      ]);
      if (found.length === 0) throw new ApiError(unknown);
      const now = new Date();
      const row = manager.create(ArchiveEntity, {
        id: this.snowflakes.next(),
        subjectType,
        subjectId,
        requestedByKeyId: caller.keyId,
        requestedByUserId: caller.userId,
        status: 'queued',
        progress: 0,
        blobKey: null,
        sizeBytes: null,
        error: null,
        createdAt: now,
        startedAt: null,
        completedAt: null,
        expiresAt: new Date(now.getTime() + this.config.archives.retentionDays * DAY_MS),
      });
      await manager.insert(ArchiveEntity, row);
      const job: ArchiveJobData = { archive_id: row.id };
      await this.jobs.send(manager, ARCHIVE_QUEUE, job);
      await this.audit.record(manager, {
        actor: audit.actor,
        action: `archive.trigger.${subjectType}`,
        targetType: subjectType,
        targetId: subjectId,
        reason: audit.reason,
        ip: audit.ip,
        metadata: { archive_id: row.id },
      });
      return row;
    });
    // Committed: this instance's worker may start at once rather than at its next poll.
    this.jobs.nudge(ARCHIVE_QUEUE);
    return toArchiveResponse(archive);
  }

  /** `POST /admin/archives/list`: newest first, filtered, within the caller's visibility. */
  async list(caller: AdminCaller, dto: ListArchivesRequest): Promise<ListArchivesResponseSchema> {
    const limit = dto.limit ?? DEFAULT_LIMIT;
    const qb = this.visible(caller);
    if (dto.subject_type) qb.andWhere('a.subjectType = :type', { type: dto.subject_type });
    if (dto.subject_id !== undefined) {
      qb.andWhere('a.subjectId = :subjectId', { subjectId: parseSnowflake(dto.subject_id) });
    }
    if (dto.requested_by !== undefined) {
      qb.andWhere('(a.requestedByKeyId = :by OR a.requestedByUserId = :by)', {
        by: parseSnowflake(dto.requested_by),
      });
    }
    if (!dto.include_expired) qb.andWhere('a.expiresAt > now()');
    const total = await qb.getCount();
    if (dto.cursor !== undefined) {
      qb.andWhere('a.id < :cursor', { cursor: parseSnowflake(dto.cursor) });
    }
    const rows = await qb
      .orderBy('a.id', 'DESC')
      .limit(limit + 1)
      .getMany();
    const page = rows.slice(0, limit);
    const now = Date.now();
    return {
      archives: page.map((a) => toArchiveResponse(a, now)),
      total,
      next_cursor: rows.length > limit ? page[page.length - 1].id : null,
    };
  }

  /** `GET /admin/archives/{subjectType}/{subjectId}/{archiveId}`. */
  async details(
    caller: AdminCaller,
    subjectType: string,
    subjectId: string,
    archiveId: string,
  ): Promise<AdminArchiveResponseSchema> {
    return toArchiveResponse(await this.find(caller, subjectType, subjectId, archiveId));
  }

  /** `GET …/{archiveId}/download`: a signed link to the zip, for a completed, unexpired archive. */
  async downloadUrl(
    caller: AdminCaller,
    subjectType: string,
    subjectId: string,
    archiveId: string,
    audit: AuditContext,
  ): Promise<DownloadUrlResponseSchema> {
    const archive = await this.find(caller, subjectType, subjectId, archiveId);
    const status = archiveStatus(archive);
    if (status === 'expired') throw new ApiError(ErrorCode.ArchiveExpired);
    if (status !== 'completed') {
      throw new ApiError(ErrorCode.ArchiveNotReady, undefined, { status });
    }
    const link = this.links.create(archive.id, archive.expiresAt);
    // Handing out a link to someone's data is recorded, like a change.
    await this.audit.record(this.db.manager, {
      actor: audit.actor,
      action: 'archive.download_url',
      targetType: archive.subjectType,
      targetId: archive.subjectId,
      reason: audit.reason,
      ip: audit.ip,
      metadata: { archive_id: archive.id, link_expires_at: link.expiresAt.toISOString() },
    });
    return { download_url: link.url, expires_at: link.expiresAt.toISOString() };
  }

  /**
   * The signed route: the zip of a completed, unexpired archive for a valid, unexpired
   * signature. Anything else (tampered, foreign, expired link, archive gone) is 403.
   */
  async open(rawArchiveId: string, expires: unknown, signature: unknown): Promise<ArchiveDownload> {
    const archiveId = parseSnowflake(rawArchiveId);
    if (!archiveId || !this.links.verify(archiveId, expires, signature)) {
      throw new ApiError(ErrorCode.AccessDenied, 'This download link is invalid or has expired.');
    }
    const archive = await this.db.getRepository(ArchiveEntity).findOneBy({ id: archiveId });
    const blob =
      archive && archiveStatus(archive) === 'completed' && archive.blobKey
        ? await this.blobs.open(archive.blobKey)
        : null;
    if (!archive || !blob) {
      throw new ApiError(ErrorCode.AccessDenied, 'This archive is no longer available.');
    }
    return {
      stream: blob.stream,
      size: blob.size,
      filename: `parley-${archive.subjectType}-${archive.subjectId}-${archive.id}.zip`,
    };
  }

  private async find(
    caller: AdminCaller,
    subjectType: string,
    subjectId: string,
    archiveId: string,
  ): Promise<ArchiveEntity> {
    if (subjectType !== 'user' && subjectType !== 'guild') {
      throw new ApiError(ErrorCode.UnknownArchive);
    }
    const archive = await this.visible(caller)
      .andWhere('a.id = :archiveId AND a.subjectType = :subjectType AND a.subjectId = :subjectId', {
        archiveId,
        subjectType,
        subjectId,
      })
      .getOne();
    if (!archive) throw new ApiError(ErrorCode.UnknownArchive);
    return archive;
  }

  /** The archives `caller` may see, as a query to narrow further. */
  private visible(caller: AdminCaller): SelectQueryBuilder<ArchiveEntity> {
    const qb = this.db.getRepository(ArchiveEntity).createQueryBuilder('a').where('TRUE');
    if (hasAcl(caller.acls, AdminAcl.ArchiveViewAll)) return qb;
    const types = (Object.keys(TRIGGER_ACL) as ArchiveSubjectType[]).filter((t) =>
      hasAcl(caller.acls, TRIGGER_ACL[t]),
    );
    // No trigger ACL at all: nothing (the route's guard already refuses such a key).
    return qb.andWhere('a.subjectType IN (:...types) AND a.requestedByKeyId = :keyId', {
      types: types.length > 0 ? types : ['none'],
      keyId: caller.keyId,
    });
  }
}
