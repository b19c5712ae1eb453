import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';
import { UserEntity } from '../../users/user.entity';
import { MessageEntity } from '../message.entity';

/**
 * A stored file (migration 1796000014000): from the moment its bytes start to arrive until its
 * blob is deleted. Attached: `message_id` set. Not attached: an upload in flight or waiting to be
 * attached (`expires_at` in the future), or a file whose message went (`expires_at` NULL) —
 * AttachmentSweeper deletes the blobs of the last two kinds once they are due.
 */
@Entity('attachments')
@Index('attachments_message_id_idx', { synchronize: false })
@Index('attachments_unattached_idx', { synchronize: false })
@Index('attachments_uploader_id_idx', { synchronize: false })
@Index('attachments_guild_id_idx', { synchronize: false })
@Index('attachments_upload_filename_key', { synchronize: false })
export class AttachmentEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'attachments_pkey' })
  id: string;

  @Column({ name: 'channel_id', type: 'bigint' })
  channelId: string;

  @Column({ name: 'guild_id', type: 'bigint', nullable: true })
  guildId: string | null;

  @Column({ name: 'message_id', type: 'bigint', nullable: true })
  messageId: string | null;

  @ManyToOne(() => MessageEntity, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'message_id', foreignKeyConstraintName: 'attachments_message_id_fkey' })
  message?: MessageEntity | null;

  @Column({ name: 'uploader_id', type: 'bigint', nullable: true })
  uploaderId: string | null;

  @ManyToOne(() => UserEntity, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'uploader_id', foreignKeyConstraintName: 'attachments_uploader_id_fkey' })
  uploader?: UserEntity | null;

  @Column({ type: 'varchar', length: 1024 })
  filename: string;

  @Column({ type: 'varchar', length: 1024, nullable: true })
  description: string | null;

  /** Sniffed from the bytes (never the client's word). */
  @Column({
    name: 'content_type',
    type: 'varchar',
    length: 255,
    default: 'application/octet-stream',
  })
  contentType: string;

  /** Bytes stored (bigint: read as a string by the driver, parsed where used). */
  @Column({ type: 'bigint', default: 0 })
  size: string;

  @Column({ type: 'integer', nullable: true })
  width: number | null;

  @Column({ type: 'integer', nullable: true })
  height: number | null;

  /** Discord's attachment flags (8: IS_SPOILER… as far as Parley sets them). */
  @Column({ type: 'integer', default: 0 })
  flags: number;

  @Column({ name: 'blob_key', type: 'varchar', length: 512 })
  blobKey: string;

  /** An upload URL's `upload_filename` (the name the message refers to it by). */
  @Column({ name: 'upload_filename', type: 'varchar', length: 1100, nullable: true })
  uploadFilename: string | null;

  /** The size an upload URL was asked for (its PUT must send exactly that many bytes). */
  @Column({ name: 'declared_size', type: 'bigint', nullable: true })
  declaredSize: string | null;

  /** Whether all of its bytes are in blob storage. */
  @Column({ type: 'boolean', default: false })
  stored: boolean;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
