import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../../../users/user.entity';

export type SmsCodePurpose = 'login' | 'phone_verify';

/**
 * The live SMS code of a user for one purpose (a newer code replaces it): a keyed hash of the
 * 6 digits, never the digits. A login code is bound to its MFA ticket; a verification code to
 * the phone number it was sent to.
 */
@Entity('mfa_sms_codes')
export class MfaSmsCodeEntity {
  @PrimaryColumn({
    name: 'user_id',
    type: 'bigint',
    primaryKeyConstraintName: 'mfa_sms_codes_pkey',
  })
  userId: string;

  @PrimaryColumn({
    type: 'varchar',
    length: 16,
    primaryKeyConstraintName: 'mfa_sms_codes_pkey',
  })
  purpose: SmsCodePurpose;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'mfa_sms_codes_user_id_fkey' })
  user?: UserEntity;

  /** Login codes: the MFA ticket the code was sent for. */
  @Column({ name: 'ticket_id', type: 'bigint', nullable: true })
  ticketId: string | null;

  /** E.164 number the code went to. */
  @Column({ type: 'varchar', length: 32 })
  phone: string;

  @Column({ name: 'code_hash', type: 'bytea' })
  codeHash: Buffer;

  /** Wrong codes tried against this one (it is spent at 5). */
  @Column({ type: 'smallint', default: 0 })
  attempts: number;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
