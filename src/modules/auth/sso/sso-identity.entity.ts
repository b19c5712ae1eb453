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

/** An account's identity at the SSO issuer (`iss` + `sub`): later logins match on it first. */
@Entity('sso_identities')
export class SsoIdentityEntity {
  @PrimaryColumn({ type: 'varchar', length: 512, primaryKeyConstraintName: 'sso_identities_pkey' })
  issuer: string;

  @PrimaryColumn({ type: 'varchar', length: 255, primaryKeyConstraintName: 'sso_identities_pkey' })
  subject: string;

  @Index('sso_identities_user_id_idx')
  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'sso_identities_user_id_fkey' })
  user?: UserEntity;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_login_at', type: 'timestamptz', nullable: true })
  lastLoginAt: Date | null;
}
