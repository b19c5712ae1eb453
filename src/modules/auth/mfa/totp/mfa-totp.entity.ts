import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../../../users/user.entity';

/**
 * A user's TOTP authenticator: the seed sealed under SECRET_KEY (never stored in plaintext),
 * pending until a first code confirms it. `last_used_step` is the replay guard: a code is accepted
 * only for a 30-second step later than the last accepted one.
 */
@Entity('mfa_totp')
export class MfaTotpEntity {
  @PrimaryColumn({ name: 'user_id', type: 'bigint', primaryKeyConstraintName: 'mfa_totp_pkey' })
  userId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'mfa_totp_user_id_fkey' })
  user?: UserEntity;

  /** The base32 seed, sealed with encryptSecret (AES-256-GCM). */
  @Column({ name: 'secret_enc', type: 'text' })
  secretEnc: string;

  /** When the first code confirmed the seed; null while the set-up is pending. */
  @Column({ name: 'confirmed_at', type: 'timestamptz', nullable: true })
  confirmedAt: Date | null;

  /** The 30-second step of the last accepted code (bigint as string). */
  @Column({ name: 'last_used_step', type: 'bigint', nullable: true })
  lastUsedStep: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
