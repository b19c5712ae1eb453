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

export interface ClientInfo {
  browser: string | null;
  os: string | null;
  platform: string | null;
  location: { city: string | null; country: string | null; region: string | null } | null;
}

/** A login session. Only the SHA-256 of its token is stored; `id_hash` is its base64url form. */
@Entity('auth_sessions')
export class SessionEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'auth_sessions_pkey' })
  id: string;

  @Index('auth_sessions_user_id_idx')
  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'auth_sessions_user_id_fkey' })
  user?: UserEntity;

  @Index('auth_sessions_token_hash_key', { unique: true })
  @Column({ name: 'token_hash', type: 'bytea' })
  tokenHash: Buffer;

  @Column({ name: 'client_info', type: 'jsonb', nullable: true })
  clientInfo: ClientInfo | null;

  @Column({ type: 'inet', nullable: true })
  ip: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /**
   * When the holder last proved a credential: the login that created the session (password, MFA,
   * SSO, passkey) or a later re-authentication. Null for sessions handed to another device.
   * Sensitive routes accept a proof younger than REAUTH_WINDOW_MS instead of asking again.
   */
  @Column({ name: 'proven_at', type: 'timestamptz', nullable: true })
  provenAt: Date | null;

  /** Updated at most once a minute, off the response path. */
  @Column({ name: 'approx_last_used_at', type: 'timestamptz', nullable: true })
  approxLastUsedAt: Date | null;
}
