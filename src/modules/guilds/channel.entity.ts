import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { GuildEntity } from './guild.entity';

/** Channel types; only guild text channels exist so far. */
export enum ChannelType {
  GuildText = 0,
}

@Entity('channels')
export class ChannelEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'channels_pkey' })
  id: string;

  @Index('channels_guild_id_idx')
  @Column({ name: 'guild_id', type: 'bigint' })
  guildId: string;

  @ManyToOne(() => GuildEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'guild_id', foreignKeyConstraintName: 'channels_guild_id_fkey' })
  guild?: GuildEntity;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'smallint', default: ChannelType.GuildText })
  type: number;

  @Column({ type: 'integer', default: 0 })
  position: number;
}
