import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';
import { GuildEntity } from '../guilds/guild.entity';
import { ApplicationEntity } from '../oauth2/application.entity';
import { UserEntity } from '../users/user.entity';
import type { MessageResponse } from '../guilds/guild.response';
import type { InteractionMetadata } from '../guilds/message.entity';

/**
 * One invocation of an application (a command, a component clicked, a modal submitted), shared by
 * every instance (ARCHITECTURE.md §7.10): the callback, follow-ups and the 3-second failure are
 * decided by conditional updates of this row, whichever instance receives them. The token itself
 * is never stored, only its hash.
 */
@Entity('interactions')
@Index('interactions_unanswered_idx', { synchronize: false })
@Index('interactions_created_at_idx', ['createdAt'])
export class InteractionEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'interactions_pkey' })
  id: string;

  @Column({ name: 'application_id', type: 'bigint' })
  applicationId: string;

  @ManyToOne(() => ApplicationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'application_id',
    foreignKeyConstraintName: 'interactions_application_id_fkey',
  })
  application?: ApplicationEntity;

  /** Discord's interaction type: 2 command, 3 component, 4 autocomplete, 5 modal submit. */
  @Column({ type: 'smallint' })
  type: number;

  @Column({ name: 'guild_id', type: 'bigint' })
  guildId: string;

  @ManyToOne(() => GuildEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'guild_id', foreignKeyConstraintName: 'interactions_guild_id_fkey' })
  guild?: GuildEntity;

  @Column({ name: 'channel_id', type: 'bigint' })
  channelId: string;

  /** Who invoked it. */
  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'interactions_user_id_fkey' })
  user?: UserEntity;

  @Column({ name: 'token_hash', type: 'bytea' })
  tokenHash: Buffer;

  /** The invoking client's nonce, echoed in INTERACTION_SUCCESS / INTERACTION_FAILURE. */
  @Column({ type: 'varchar', length: 25, nullable: true })
  nonce: string | null;

  /** The message a component was clicked on. */
  @Column({ name: 'message_id', type: 'bigint', nullable: true })
  messageId: string | null;

  /** What its messages carry (Discord's interaction metadata), and a modal's `custom_id`. */
  @Column({ type: 'jsonb' })
  metadata: StoredMetadata;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** When the application's first answer came (the callback). */
  @Column({ name: 'responded_at', type: 'timestamptz', nullable: true })
  respondedAt: Date | null;

  @Column({ name: 'response_type', type: 'smallint', nullable: true })
  responseType: number | null;

  /** When the 3 seconds ran out without an answer (INTERACTION_FAILURE was sent). */
  @Column({ name: 'failed_at', type: 'timestamptz', nullable: true })
  failedAt: Date | null;

  /** The response message (`@original`), once there is one. */
  @Column({ name: 'original_message_id', type: 'bigint', nullable: true })
  originalMessageId: string | null;
}

/** The interaction's metadata as messages show it, and what its answer opened. */
export interface StoredMetadata extends InteractionMetadata {
  /** The modal the answer showed (callback type 9): its submission must name it. */
  modal_custom_id?: string;
}

/**
 * An ephemeral message (flags 64): seen by the invoking user only, so never in a channel's
 * history — kept beside its interaction, and gone with it (15 minutes).
 */
@Entity('ephemeral_messages')
@Index('ephemeral_messages_interaction_id_idx', ['interactionId'])
export class EphemeralMessageEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'ephemeral_messages_pkey' })
  id: string;

  @Column({ name: 'interaction_id', type: 'bigint' })
  interactionId: string;

  @ManyToOne(() => InteractionEntity, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'interaction_id',
    foreignKeyConstraintName: 'ephemeral_messages_interaction_id_fkey',
  })
  interaction?: InteractionEntity;

  @Column({ name: 'channel_id', type: 'bigint' })
  channelId: string;

  /** Whom it is for. */
  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  /** The message as it is shown. */
  @Column({ type: 'jsonb' })
  message: MessageResponse;
}
