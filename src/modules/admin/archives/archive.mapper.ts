import type { ArchiveEntity, ArchiveStatus } from './archive.entity';
import type { AdminArchiveResponseSchema } from './archive.response';

/** The status as reported: a stored status, or `expired` once `expires_at` has passed. */
export function archiveStatus(archive: ArchiveEntity, now = Date.now()): ArchiveStatus {
  return archive.expiresAt.getTime() <= now ? 'expired' : archive.status;
}

export function toArchiveResponse(
  archive: ArchiveEntity,
  now = Date.now(),
): AdminArchiveResponseSchema {
  const status = archiveStatus(archive, now);
  const completed = status === 'completed';
  return {
    archive_id: archive.id,
    subject_type: archive.subjectType,
    subject_id: archive.subjectId,
    status,
    progress: archive.progress,
    requested_by: { key_id: archive.requestedByKeyId, user_id: archive.requestedByUserId },
    created_at: archive.createdAt.toISOString(),
    started_at: archive.startedAt?.toISOString() ?? null,
    completed_at: archive.completedAt?.toISOString() ?? null,
    expires_at: archive.expiresAt.toISOString(),
    file_location: completed ? archive.blobKey : null,
    file_size: completed && archive.sizeBytes !== null ? Number(archive.sizeBytes) : null,
    error: archive.error,
  };
}
