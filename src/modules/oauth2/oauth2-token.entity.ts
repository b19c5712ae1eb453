import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { OAuth2GrantEntity } from './oauth2-grant.entity';

export type OAuth2TokenKind = 'access' | 'refresh';

/**
 * An access or refresh token, stored as SHA-256. User, application and scopes are copied from
 * the grant so that resolving an access token is one indexed query. Revocation deletes the
 * grant's rows; a used refresh token is kept (used_at) so that its replay can be detected.
 */
@Entity('oauth2_tokens')
export class OAuth2TokenEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'oauth2_tokens_pkey' })
  id: string;

  @Index('oauth2_tokens_token_hash_key', { unique: true })
  @Column({ name: 'token_hash', type: 'bytea' })
  tokenHash: Buffer;

  @Column({ type: 'varchar', length: 16 })
  kind: OAuth2TokenKind;

  @Index('oauth2_tokens_grant_id_idx')
  @Column({ name: 'grant_id', type: 'bigint' })
  grantId: string;

  @ManyToOne(() => OAuth2GrantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'grant_id', foreignKeyConstraintName: 'oauth2_tokens_grant_id_fkey' })
  grant?: OAuth2GrantEntity;

  @Column({ name: 'application_id', type: 'bigint' })
  applicationId: string;

  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @Column({ type: 'text', array: true })
  scopes: string[];

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  /** Refresh tokens only: when it was exchanged (rotation). */
  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
