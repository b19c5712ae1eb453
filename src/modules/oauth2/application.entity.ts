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
 * An OAuth2 application and its bot. The client secret and the bot token's secret are stored
 * only as SHA-256 (ARCHITECTURE.md §4); the bot's profile lives on its user row.
 */
@Entity('oauth2_applications')
export class ApplicationEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'oauth2_applications_pkey' })
  id: string;

  @Index('oauth2_applications_owner_id_idx')
  @Column({ name: 'owner_id', type: 'bigint' })
  ownerId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'owner_id', foreignKeyConstraintName: 'oauth2_applications_owner_id_fkey' })
  owner?: UserEntity;

  @Index('oauth2_applications_bot_user_id_key', { unique: true })
  @Column({ name: 'bot_user_id', type: 'bigint' })
  botUserId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'bot_user_id',
    foreignKeyConstraintName: 'oauth2_applications_bot_user_id_fkey',
  })
  botUser?: UserEntity;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 400, nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  icon: string | null;

  @Column({ name: 'redirect_uris', type: 'text', array: true, default: () => "'{}'" })
  redirectUris: string[];

  @Column({ name: 'bot_public', type: 'boolean', default: true })
  botPublic: boolean;

  @Column({ name: 'bot_require_code_grant', type: 'boolean', default: false })
  botRequireCodeGrant: boolean;

  /** ApplicationFlags bitfield. */
  @Column({ type: 'integer', default: 0 })
  flags: number;

  /** BotFlags bitfield (FRIENDLY_BOT 16, FRIENDLY_BOT_MANUAL_APPROVAL 32). */
  @Column({ name: 'bot_flags', type: 'integer', default: 0 })
  botFlags: number;

  @Column({ name: 'client_secret_hash', type: 'bytea' })
  clientSecretHash: Buffer;

  /** SHA-256 of the secret part of `<application_id>.<secret>`. */
  @Column({ name: 'bot_token_hash', type: 'bytea' })
  botTokenHash: Buffer;

  /** The Ed25519 public key, hex (Discord's `verify_key`); null until first asked for. */
  @Column({ name: 'verify_key', type: 'varchar', length: 64, nullable: true })
  verifyKey: string | null;

  /** Its private key (PKCS#8 DER, base64), sealed under SECRET_KEY. */
  @Column({ name: 'signing_key_encrypted', type: 'text', nullable: true, select: false })
  signingKeyEncrypted: string | null;

  /** Where interactions are POSTed, signed (null: over the gateway); set once verified. */
  @Column({ name: 'interactions_endpoint_url', type: 'varchar', length: 2048, nullable: true })
  interactionsEndpointUrl: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
