import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A started SSO login: the SHA-256 of its `state`, its nonce and PKCE verifier sealed under
 * SECRET_KEY (both are sent again: the verifier to the token endpoint, the nonce to openid-client,
 * which compares the ID token's), and where the web app goes afterwards. Single use, 10 minutes.
 */
@Entity('sso_states')
export class SsoStateEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'sso_states_pkey' })
  id: string;

  @Index('sso_states_state_hash_key', { unique: true })
  @Column({ name: 'state_hash', type: 'bytea' })
  stateHash: Buffer;

  /** The nonce, sealed with encryptSecret. */
  @Column({ name: 'nonce_enc', type: 'text' })
  nonceEnc: string;

  /** The PKCE code verifier, sealed with encryptSecret. */
  @Column({ name: 'code_verifier_enc', type: 'text' })
  codeVerifierEnc: string;

  @Column({ name: 'redirect_to', type: 'varchar', length: 2048 })
  redirectTo: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'consumed_at', type: 'timestamptz', nullable: true })
  consumedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
