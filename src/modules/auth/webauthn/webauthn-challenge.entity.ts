import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

export type WebAuthnChallengePurpose = 'registration' | 'mfa' | 'passwordless' | 'reauth';

/**
 * A challenge this server issued: only its SHA-256, the context it is bound to (the user, the MFA
 * ticket or the session) and its 5-minute life. Spent by the first response that names it.
 */
@Entity('webauthn_challenges')
export class WebAuthnChallengeEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'webauthn_challenges_pkey' })
  id: string;

  @Index('webauthn_challenges_challenge_hash_key', { unique: true })
  @Column({ name: 'challenge_hash', type: 'bytea' })
  challengeHash: Buffer;

  @Column({ type: 'varchar', length: 16 })
  purpose: WebAuthnChallengePurpose;

  @Column({ name: 'user_id', type: 'bigint', nullable: true })
  userId: string | null;

  @Column({ name: 'ticket_id', type: 'bigint', nullable: true })
  ticketId: string | null;

  @Column({ name: 'session_id', type: 'bigint', nullable: true })
  sessionId: string | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'consumed_at', type: 'timestamptz', nullable: true })
  consumedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
