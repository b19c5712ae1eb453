import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';
import { ApplicationEntity } from './application.entity';
import { OAuth2CodeEntity } from './oauth2-code.entity';

/**
 * One chain of tokens born from one authorization code. Refresh-token rotation keeps the grant;
 * revoking any token of it, replaying its code or replaying a used refresh token revokes it all.
 */
@Entity('oauth2_grants')
export class OAuth2GrantEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'oauth2_grants_pkey' })
  id: string;

  @Index('oauth2_grants_application_id_idx')
  @Column({ name: 'application_id', type: 'bigint' })
  applicationId: string;

  @ManyToOne(() => ApplicationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'application_id',
    foreignKeyConstraintName: 'oauth2_grants_application_id_fkey',
  })
  application?: ApplicationEntity;

  @Index('oauth2_grants_user_id_idx')
  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'oauth2_grants_user_id_fkey' })
  user?: UserEntity;

  @Index('oauth2_grants_code_id_key', { unique: true })
  @Column({ name: 'code_id', type: 'bigint', nullable: true })
  codeId: string | null;

  @ManyToOne(() => OAuth2CodeEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'code_id', foreignKeyConstraintName: 'oauth2_grants_code_id_fkey' })
  code?: OAuth2CodeEntity;

  @Column({ type: 'text', array: true })
  scopes: string[];

  /** The code's `auth_time`: ID tokens and userinfo of every token of the grant repeat it. */
  @Column({ name: 'auth_time', type: 'timestamptz' })
  authTime: Date;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
