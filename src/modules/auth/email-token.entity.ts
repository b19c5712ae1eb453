import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';
import { UserEntity } from '../users/user.entity';

export type EmailTokenKind = 'verify' | 'reset' | 'email_revert' | 'authorize_ip';

/** A token sent by e-mail: single-use, expiring, stored only as its SHA-256. */
@Entity('email_tokens')
export class EmailTokenEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'email_tokens_pkey' })
  id: string;

  @Index('email_tokens_user_id_idx')
  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'email_tokens_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'varchar', length: 32 })
  kind: EmailTokenKind;

  @Index('email_tokens_token_hash_key', { unique: true })
  @Column({ name: 'token_hash', type: 'bytea' })
  tokenHash: Buffer;

  /** Kind-specific facts, e.g. the address being verified or the address to restore. */
  @Column({ type: 'jsonb', nullable: true })
  data: Record<string, string> | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
