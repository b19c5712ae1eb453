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

@Entity('guilds')
export class GuildEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'guilds_pkey' })
  id: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Index('guilds_owner_id_idx')
  @Column({ name: 'owner_id', type: 'bigint' })
  ownerId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'owner_id', foreignKeyConstraintName: 'guilds_owner_id_fkey' })
  owner?: UserEntity;

  /** Icon hash (the file lives in assets/icons/<guild id>/<hash>.<ext>). */
  @Column({ type: 'varchar', length: 64, nullable: true })
  icon: string | null;

  /** Banner hash (assets/banners/<guild id>/<hash>.<ext>). */
  @Column({ type: 'varchar', length: 64, nullable: true })
  banner: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
