import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { GuildEntity } from '../guilds/guild.entity';
import { ApplicationEntity } from '../oauth2/application.entity';
import type { StoredOption } from './command-types';

/**
 * An application command (Discord's): global when `guildId` is null, else one guild's. A name is
 * unique per application, scope and type (the two partial indexes), which is what POST upserts on.
 */
@Entity('application_commands')
@Index('application_commands_global_name_key', ['applicationId', 'type', 'name'], {
  unique: true,
  where: 'guild_id IS NULL',
})
@Index('application_commands_guild_name_key', ['applicationId', 'guildId', 'type', 'name'], {
  unique: true,
  where: 'guild_id IS NOT NULL',
})
export class ApplicationCommandEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'application_commands_pkey' })
  id: string;

  @Column({ name: 'application_id', type: 'bigint' })
  applicationId: string;

  @ManyToOne(() => ApplicationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'application_id',
    foreignKeyConstraintName: 'application_commands_application_id_fkey',
  })
  application?: ApplicationEntity;

  @Index('application_commands_guild_id_idx')
  @Column({ name: 'guild_id', type: 'bigint', nullable: true })
  guildId: string | null;

  @ManyToOne(() => GuildEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'guild_id', foreignKeyConstraintName: 'application_commands_guild_id_fkey' })
  guild?: GuildEntity;

  /** 1 CHAT_INPUT, 2 USER, 3 MESSAGE. */
  @Column({ type: 'smallint' })
  type: number;

  @Column({ type: 'varchar', length: 32 })
  name: string;

  @Column({ name: 'name_localizations', type: 'jsonb', nullable: true })
  nameLocalizations: Record<string, string> | null;

  @Column({ type: 'varchar', length: 100, default: '' })
  description: string;

  @Column({ name: 'description_localizations', type: 'jsonb', nullable: true })
  descriptionLocalizations: Record<string, string> | null;

  /** The options as validated (command-schema.ts), nested as Discord nests them. */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  options: StoredOption[];

  /** Permission bitfield (decimal string) a member needs to use it; null: everyone. */
  @Column({ name: 'default_member_permissions', type: 'varchar', length: 20, nullable: true })
  defaultMemberPermissions: string | null;

  @Column({ name: 'dm_permission', type: 'boolean', default: true })
  dmPermission: boolean;

  /** Interaction context types (0 guild, 1 bot DM, 2 private channel); null: Discord's default. */
  @Column({ type: 'smallint', array: true, nullable: true })
  contexts: number[] | null;

  /** Installation contexts (0 guild install, 1 user install). */
  @Column({ name: 'integration_types', type: 'smallint', array: true, default: () => "'{0}'" })
  integrationTypes: number[];

  @Column({ type: 'boolean', default: false })
  nsfw: boolean;

  /** A snowflake that changes whenever the command does. */
  @Column({ type: 'bigint' })
  version: string;
}
