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

export type AuthTicketKind = 'mfa' | 'ip_authorization';

/**
 * A login that is waiting for a second step: an MFA ticket (consumed by the MFA endpoints) or an
 * IP-authorization ticket (completed by the e-mailed link, then redeemed once by polling).
 * Only the SHA-256 of the ticket is stored.
 */
@Entity('auth_tickets')
export class AuthTicketEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'auth_tickets_pkey' })
  id: string;

  @Index('auth_tickets_user_id_idx')
  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'auth_tickets_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'varchar', length: 32 })
  kind: AuthTicketKind;

  @Index('auth_tickets_ticket_hash_key', { unique: true })
  @Column({ name: 'ticket_hash', type: 'bytea' })
  ticketHash: Buffer;

  /** Where the login came from (the session minted later gets the same origin). */
  @Column({ type: 'inet', nullable: true })
  ip: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 512, nullable: true })
  userAgent: string | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  /** IP authorization: when the e-mailed link was followed. */
  @Column({ name: 'authorized_at', type: 'timestamptz', nullable: true })
  authorizedAt: Date | null;

  /** When the ticket was redeemed (single use). */
  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt: Date | null;

  @Column({ name: 'last_sent_at', type: 'timestamptz', nullable: true })
  lastSentAt: Date | null;

  @Column({ name: 'resend_count', type: 'smallint', default: 0 })
  resendCount: number;

  /** MFA: wrong codes submitted with this ticket (the ticket is spent at MFA_TICKET_MAX_FAILURES). */
  @Column({ name: 'failed_attempts', type: 'smallint', default: 0 })
  failedAttempts: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
