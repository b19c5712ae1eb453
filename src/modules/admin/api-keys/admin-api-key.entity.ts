import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../../users/user.entity';

/**
 * An admin API key (`adm_<id>_<secret>`). Only the SHA-256 of the whole key is stored. Deleting
 * the row revokes the key; a trigger announces it (`k:<id>`) so every instance drops it at once.
 */
@Entity('admin_api_keys')
export class AdminApiKeyEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'admin_api_keys_pkey' })
  id: string;

  @Index('admin_api_keys_user_id_idx')
  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'admin_api_keys_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Index('admin_api_keys_token_hash_key', { unique: true })
  @Column({ name: 'token_hash', type: 'bytea' })
  tokenHash: Buffer;

  @Column({ type: 'text', array: true })
  acls: string[];

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  /** Updated at most once a minute, off the response path. */
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;
}
