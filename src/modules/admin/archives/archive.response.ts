import { ApiProperty } from '@nestjs/swagger';
import {
  ARCHIVE_SUBJECT_TYPES,
  type ArchiveStatus,
  type ArchiveSubjectType,
} from './archive.entity';

const STATUSES: ArchiveStatus[] = ['queued', 'running', 'completed', 'failed', 'expired'];

/** Who asked for an archive. */
export class ArchiveRequesterResponse {
  /** The admin API key that triggered it. */
  @ApiProperty({ type: String, nullable: true, example: '1300000000000000000' })
  key_id: string | null;

  /** The owner of that key. */
  @ApiProperty({ type: String, nullable: true, example: '1300000000000000000' })
  user_id: string | null;
}

/** An archive's metadata (never its contents). */
export class AdminArchiveResponseSchema {
  @ApiProperty({ example: '1300000000000000000' })
  archive_id: string;

  @ApiProperty({ enum: ARCHIVE_SUBJECT_TYPES })
  subject_type: ArchiveSubjectType;

  /** The exported user's or guild's id. */
  @ApiProperty({ example: '1300000000000000000' })
  subject_id: string;

  /**
   * `queued → running → completed | failed`; `expired` once `expires_at` has passed (the file is
   * then no longer downloadable).
   */
  @ApiProperty({ enum: STATUSES })
  status: ArchiveStatus;

  /** Build progress in percent (100 once completed). */
  @ApiProperty({ minimum: 0, maximum: 100, example: 40 })
  progress: number;

  requested_by: ArchiveRequesterResponse;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  /** When the build (its latest attempt) started. */
  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  started_at: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  completed_at: string | null;

  /** After this instant the archive is `expired` and its file is deleted. */
  @ApiProperty({ format: 'date-time' })
  expires_at: string;

  /** Where the zip is kept in blob storage (relative to DATA_DIR), once completed. */
  @ApiProperty({ type: String, nullable: true, example: 'archives/1300000000000000000.zip' })
  file_location: string | null;

  /** Size of the zip in bytes, once completed. */
  @ApiProperty({ type: Number, nullable: true, example: 20480 })
  file_size: number | null;

  /** Why the build failed (status `failed`). */
  @ApiProperty({ type: String, nullable: true })
  error: string | null;
}

/** `GET /admin/archives/{subjectType}/{subjectId}/{archiveId}`: the archive's metadata. */
export class GetArchiveResponseSchema extends AdminArchiveResponseSchema {}

export class ListArchivesResponseSchema {
  @ApiProperty({ type: [AdminArchiveResponseSchema] })
  archives: AdminArchiveResponseSchema[];

  /** How many archives match the filters (all pages). */
  @ApiProperty({ example: 1 })
  total: number;

  /** Pass as `cursor` for the next page; null on the last page. */
  @ApiProperty({ type: String, nullable: true, example: '1300000000000000000' })
  next_cursor: string | null;
}

export class DownloadUrlResponseSchema {
  /**
   * An absolute URL on this API that serves the zip without any `Authorization` header: its
   * signature is the credential. Keep it secret.
   */
  @ApiProperty({
    example:
      'https://parley.example/v1/archives/1300000000000000000/download?expires=1767225600&signature=…',
  })
  download_url: string;

  /** When the link stops working (at most the archive's own expiry). */
  @ApiProperty({ format: 'date-time' })
  expires_at: string;
}
