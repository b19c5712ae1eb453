import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';
import { ApplicationEntity } from './application.entity';

/** That a user authorized an application, with the union of the scopes granted so far. */
@Entity('oauth2_authorizations')
@Index('oauth2_authorizations_user_id_application_id_key', ['userId', 'applicationId'], {
  unique: true,
})
export class OAuth2AuthorizationEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'oauth2_authorizations_pkey' })
  id: string;

  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'oauth2_authorizations_user_id_fkey' })
  user?: UserEntity;

  @Index('oauth2_authorizations_application_id_idx')
  @Column({ name: 'application_id', type: 'bigint' })
  applicationId: string;

  @ManyToOne(() => ApplicationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'application_id',
    foreignKeyConstraintName: 'oauth2_authorizations_application_id_fkey',
  })
  application?: ApplicationEntity;

  @Column({ type: 'text', array: true })
  scopes: string[];

  @Column({ name: 'authorized_at', type: 'timestamptz' })
  authorizedAt: Date;
}
