import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/** An IP address a user has logged in from (or authorized by e-mail): ARCHITECTURE.md §6. */
@Entity('authorized_ips')
export class AuthorizedIpEntity {
  @PrimaryColumn({
    name: 'user_id',
    type: 'bigint',
    primaryKeyConstraintName: 'authorized_ips_pkey',
  })
  userId: string;

  @PrimaryColumn({ type: 'inet', primaryKeyConstraintName: 'authorized_ips_pkey' })
  ip: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'authorized_ips_user_id_fkey' })
  user?: UserEntity;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz' })
  lastUsedAt: Date;
}
