import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';
import { ApplicationEntity } from './application.entity';

/** An authorization code (stored as SHA-256), single-use, 10 minutes. */
@Entity('oauth2_codes')
export class OAuth2CodeEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'oauth2_codes_pkey' })
  id: string;

  @Index('oauth2_codes_code_hash_key', { unique: true })
  @Column({ name: 'code_hash', type: 'bytea' })
  codeHash: Buffer;

  @Index('oauth2_codes_application_id_idx')
  @Column({ name: 'application_id', type: 'bigint' })
  applicationId: string;

  @ManyToOne(() => ApplicationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'application_id',
    foreignKeyConstraintName: 'oauth2_codes_application_id_fkey',
  })
  application?: ApplicationEntity;

  @Index('oauth2_codes_user_id_idx')
  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'oauth2_codes_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'text', array: true })
  scopes: string[];

  /** The redirect_uri of the authorization request; the token request must repeat it. */
  @Column({ name: 'redirect_uri', type: 'text', nullable: true })
  redirectUri: string | null;

  /** PKCE S256 challenge (RFC 7636); when set, the token request needs the verifier. */
  @Column({ name: 'code_challenge', type: 'varchar', length: 128, nullable: true })
  codeChallenge: string | null;

  /** OpenID Connect: the consent request's nonce, repeated in the ID token. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  nonce: string | null;

  /** When the consenting session's user authenticated (the ID token's `auth_time`). */
  @Column({ name: 'auth_time', type: 'timestamptz' })
  authTime: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  /** Set on exchange; a second exchange is a replay and revokes the grant it produced. */
  @Column({ name: 'consumed_at', type: 'timestamptz', nullable: true })
  consumedAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
