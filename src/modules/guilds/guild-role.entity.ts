import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { GuildEntity } from './guild.entity';

/** A role. The @everyone role has the guild's id. */
@Entity('guild_roles')
export class GuildRoleEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'guild_roles_pkey' })
  id: string;

  @Index('guild_roles_guild_id_idx')
  @Column({ name: 'guild_id', type: 'bigint' })
  guildId: string;

  @ManyToOne(() => GuildEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'guild_id', foreignKeyConstraintName: 'guild_roles_guild_id_fkey' })
  guild?: GuildEntity;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** Permission bitfield (bigint; TypeORM hands it over as a decimal string). */
  @Column({ type: 'bigint', default: '0' })
  permissions: string;

  /** Sorted by position, then id: at the same position the older role (lower id) is higher. */
  @Column({ type: 'integer', default: 0 })
  position: number;

  /** RGB as an integer; 0 = no colour. */
  @Column({ type: 'integer', default: 0 })
  color: number;

  /** Shown apart from the other members in the member list. */
  @Column({ type: 'boolean', default: false })
  hoist: boolean;

  /** Anyone may mention it (`<@&id>`). */
  @Column({ type: 'boolean', default: false })
  mentionable: boolean;

  @Column({ name: 'unicode_emoji', type: 'text', nullable: true })
  unicodeEmoji: string | null;

  /** The bot user whose managed role this is (made when it was installed; goes with it). */
  @Column({ name: 'bot_id', type: 'bigint', nullable: true })
  botId: string | null;
}
