import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';
import { GuildEntity } from './guild.entity';

/** A user banned from a guild (Discord's guild ban): no member, and cannot join again. */
@Entity('guild_bans')
export class GuildBanEntity {
  @PrimaryColumn({ name: 'guild_id', type: 'bigint', primaryKeyConstraintName: 'guild_bans_pkey' })
  guildId: string;

  @PrimaryColumn({ name: 'user_id', type: 'bigint', primaryKeyConstraintName: 'guild_bans_pkey' })
  userId: string;

  @ManyToOne(() => GuildEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'guild_id', foreignKeyConstraintName: 'guild_bans_guild_id_fkey' })
  guild?: GuildEntity;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'guild_bans_user_id_fkey' })
  user?: UserEntity;

  /** The ban request's `X-Audit-Log-Reason`. */
  @Column({ type: 'varchar', length: 512, nullable: true })
  reason: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
