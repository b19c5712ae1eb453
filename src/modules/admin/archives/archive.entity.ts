import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export type ArchiveSubjectType = 'user' | 'guild';
export const ARCHIVE_SUBJECT_TYPES: readonly ArchiveSubjectType[] = ['user', 'guild'];

/** Stored states; `expired` is never stored: it is reported once `expires_at` has passed. */
export type ArchiveStoredStatus = 'queued' | 'running' | 'completed' | 'failed';
export type ArchiveStatus = ArchiveStoredStatus | 'expired';

/**
 * A data export of one user or one guild, built by the `archive-build` job (pg-boss) into a zip
 * kept in blob storage (`blob_key`). The row and its job are inserted in one transaction.
 * `queued → running (progress 0–100) → completed | failed`; reported `expired` after `expires_at`.
 * No foreign key to the subject or the requesting key: an archive outlives both.
 */
@Entity('archives')
@Index('archives_subject_idx', ['subjectType', 'subjectId', 'id'])
@Index('archives_requested_by_key_id_idx', ['requestedByKeyId', 'id'])
export class ArchiveEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'archives_pkey' })
  id: string;

  @Column({ name: 'subject_type', type: 'varchar', length: 8 })
  subjectType: ArchiveSubjectType;

  @Column({ name: 'subject_id', type: 'bigint' })
  subjectId: string;

  /** The admin key that asked for it (null when requested otherwise). */
  @Column({ name: 'requested_by_key_id', type: 'bigint', nullable: true })
  requestedByKeyId: string | null;

  /** The owner of that key. */
  @Column({ name: 'requested_by_user_id', type: 'bigint', nullable: true })
  requestedByUserId: string | null;

  @Column({ type: 'varchar', length: 16, default: 'queued' })
  status: ArchiveStoredStatus;

  /** 0–100 while running; 100 once completed. */
  @Column({ type: 'smallint', default: 0 })
  progress: number;

  /** Where the zip lives in blob storage, once completed. */
  @Column({ name: 'blob_key', type: 'varchar', length: 255, nullable: true })
  blobKey: string | null;

  /** Size of the zip in bytes (bigint: TypeORM hands it over as a string). */
  @Column({ name: 'size_bytes', type: 'bigint', nullable: true })
  sizeBytes: string | null;

  /** Why the build failed (after its last attempt). */
  @Column({ type: 'varchar', length: 1000, nullable: true })
  error: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  @Index('archives_expires_at_idx')
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
