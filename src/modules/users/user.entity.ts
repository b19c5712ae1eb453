import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** Public user flags (a subset of Discord's), exposed as `flags`. */
export enum PublicUserFlags {
  Staff = 1 << 0,
  VerifiedBot = 1 << 16,
}

// Case-insensitive uniqueness lives in expression indexes written by hand in the migration;
// `synchronize: false` tells the schema diff to leave them alone.
@Entity('users')
@Index('users_username_discriminator_key', { synchronize: false })
@Index('users_email_key', { synchronize: false })
export class UserEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'users_pkey' })
  id: string;

  @Column({ type: 'varchar', length: 32 })
  username: string;

  @Column({ type: 'varchar', length: 4 })
  discriminator: string;

  @Column({ name: 'global_name', type: 'varchar', length: 32, nullable: true })
  globalName: string | null;

  @Column({ type: 'varchar', length: 254, nullable: true })
  email: string | null;

  @Column({ name: 'email_verified', type: 'boolean', default: false })
  emailVerified: boolean;

  /** argon2id hash; null for accounts without a password (bots, unclaimed accounts). */
  @Column({ name: 'password_hash', type: 'text', nullable: true })
  passwordHash: string | null;

  @Column({ name: 'date_of_birth', type: 'date', nullable: true })
  dateOfBirth: string | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  phone: string | null;

  @Column({ type: 'integer', default: 0 })
  flags: number;

  /** Admin ACLs held by this user (`*` = all). */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  acls: string[];

  @Column({ type: 'varchar', length: 64, nullable: true })
  avatar: string | null;

  @Column({ name: 'avatar_color', type: 'integer', nullable: true })
  avatarColor: number | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  banner: string | null;

  @Column({ type: 'varchar', length: 1024, nullable: true })
  bio: string | null;

  @Column({ type: 'boolean', default: false })
  bot: boolean;

  @Column({ type: 'boolean', default: false })
  system: boolean;

  @Column({ name: 'mfa_enabled', type: 'boolean', default: false })
  mfaEnabled: boolean;

  /** AuthenticatorType values (0 TOTP, 1 SMS, 2 WebAuthn) the user has enrolled. */
  @Column({ name: 'authenticator_types', type: 'smallint', array: true, default: () => "'{}'" })
  authenticatorTypes: number[];

  @Column({ name: 'password_changed_at', type: 'timestamptz', nullable: true })
  passwordChangedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
