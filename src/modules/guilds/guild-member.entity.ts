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
import { GuildEntity } from './guild.entity';

/** Membership; `roles` lists role ids besides @everyone (which every member has implicitly). */
@Entity('guild_members')
export class GuildMemberEntity {
  @PrimaryColumn({
    name: 'guild_id',
    type: 'bigint',
    primaryKeyConstraintName: 'guild_members_pkey',
  })
  guildId: string;

  @Index('guild_members_user_id_idx')
  @PrimaryColumn({
    name: 'user_id',
    type: 'bigint',
    primaryKeyConstraintName: 'guild_members_pkey',
  })
  userId: string;

  @ManyToOne(() => GuildEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'guild_id', foreignKeyConstraintName: 'guild_members_guild_id_fkey' })
  guild?: GuildEntity;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'guild_members_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'bigint', array: true, default: () => "'{}'" })
  roles: string[];

  /** The member's nickname in this guild (1-32 characters), null for none. */
  @Column({ type: 'varchar', length: 32, nullable: true })
  nick: string | null;

  @CreateDateColumn({ name: 'joined_at', type: 'timestamptz' })
  joinedAt: Date;
}
