import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../../../users/user.entity';

/**
 * One of a user's 10 single-use backup codes, kept only as an HMAC-SHA-256 keyed by SECRET_KEY:
 * the codes are shown once, when they are generated.
 */
@Entity('mfa_backup_codes')
export class MfaBackupCodeEntity {
  @PrimaryColumn({
    name: 'user_id',
    type: 'bigint',
    primaryKeyConstraintName: 'mfa_backup_codes_pkey',
  })
  userId: string;

  @PrimaryColumn({
    name: 'code_hash',
    type: 'bytea',
    primaryKeyConstraintName: 'mfa_backup_codes_pkey',
  })
  codeHash: Buffer;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'mfa_backup_codes_user_id_fkey' })
  user?: UserEntity;

  @Column({ name: 'consumed_at', type: 'timestamptz', nullable: true })
  consumedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
