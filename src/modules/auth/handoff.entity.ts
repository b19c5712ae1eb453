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

/**
 * A device handoff: the new device shows a code, a logged-in device completes it, the new device
 * reads the minted session once. Lives in the database so any instance can answer. The code is
 * stored as SHA-256; the minted token only encrypted (AES-256-GCM), and wiped once read.
 */
@Entity('auth_handoffs')
export class HandoffEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'auth_handoffs_pkey' })
  id: string;

  @Index('auth_handoffs_code_hash_key', { unique: true })
  @Column({ name: 'code_hash', type: 'bytea' })
  codeHash: Buffer;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'user_id', type: 'bigint', nullable: true })
  userId: string | null;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'auth_handoffs_user_id_fkey' })
  user?: UserEntity;

  /** The initiating device: the session minted for it carries this origin. */
  @Column({ type: 'inet', nullable: true })
  ip: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 512, nullable: true })
  userAgent: string | null;

  @Column({ name: 'sealed_token', type: 'text', nullable: true })
  sealedToken: string | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  @Column({ name: 'read_at', type: 'timestamptz', nullable: true })
  readAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
