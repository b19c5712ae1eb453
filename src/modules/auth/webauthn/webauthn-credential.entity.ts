import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';
import { UserEntity } from '../../users/user.entity';

/** A registered WebAuthn credential (passkey or security key): its public key and counter. */
@Entity('webauthn_credentials')
export class WebAuthnCredentialEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'webauthn_credentials_pkey' })
  id: string;

  @Index('webauthn_credentials_user_id_idx')
  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'webauthn_credentials_user_id_fkey' })
  user?: UserEntity;

  /** The authenticator's credential id, base64url (public: it is sent in every assertion). */
  @Index('webauthn_credentials_credential_id_key', { unique: true })
  @Column({ name: 'credential_id', type: 'varchar', length: 1024 })
  credentialId: string;

  /** COSE public key. */
  @Column({ name: 'public_key', type: 'bytea' })
  publicKey: Buffer;

  /** Signature counter of the last accepted assertion (must grow when the authenticator counts). */
  @Column({ type: 'bigint', default: 0 })
  counter: string;

  @Column({ type: 'text', array: true, default: '{}' })
  transports: string[];

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** `singleDevice` or `multiDevice` (a synced passkey). */
  @Column({ name: 'device_type', type: 'varchar', length: 32 })
  deviceType: string;

  @Column({ name: 'backed_up', type: 'boolean', default: false })
  backedUp: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;
}
