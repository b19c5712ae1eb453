import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';
import type { ActionRow } from './components/component-types';
import type { StoredAttachment } from './attachments/stored-attachment';
import type { Embed } from './embeds/embed';
import { UserEntity } from '../users/user.entity';
import type { UserPartialResponse } from '../users/user.response';
import { ChannelEntity } from './channel.entity';

/**
 * A message. Either a user wrote it (`author_id`) or a webhook did (`webhook_id`, with the display
 * name and avatar it used snapshotted, so reading never joins webhooks). "Last message" of a
 * channel is derived from the (channel_id, id DESC) index — the channel row is never updated.
 */
@Entity('messages')
@Index('messages_channel_id_id_idx', { synchronize: false })
// Partial indexes (migrations): pinned messages, and nonces kept under enforce_nonce.
@Index('messages_channel_pinned_idx', { synchronize: false })
@Index('messages_channel_nonce_idx', { synchronize: false })
@Index('messages_interaction_id_idx', { synchronize: false })
export class MessageEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'messages_pkey' })
  id: string;

  @Column({ name: 'channel_id', type: 'bigint' })
  channelId: string;

  @ManyToOne(() => ChannelEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'channel_id', foreignKeyConstraintName: 'messages_channel_id_fkey' })
  channel?: ChannelEntity;

  @Column({ name: 'author_id', type: 'bigint', nullable: true })
  authorId: string | null;

  @ManyToOne(() => UserEntity, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'author_id', foreignKeyConstraintName: 'messages_author_id_fkey' })
  author?: UserEntity | null;

  /** The webhook that posted it (no foreign key: messages outlive their webhook). */
  @Column({ name: 'webhook_id', type: 'bigint', nullable: true })
  webhookId: string | null;

  @Column({ name: 'webhook_name', type: 'varchar', length: 80, nullable: true })
  webhookName: string | null;

  /** Avatar hash of the webhook, or the `avatar_url` override it was executed with. */
  @Column({ name: 'webhook_avatar', type: 'text', nullable: true })
  webhookAvatar: string | null;

  @Column({ type: 'varchar', length: 2000, default: '' })
  content: string;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  embeds: Embed[];

  /** A bot's message components (action rows of buttons and select menus), as sent. */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  components: ActionRow[];

  /**
   * Its files' public fields (attachments table, migration 1796000014000), in the order given;
   * links are signed when it is shown (AttachmentLinks).
   */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  attachments: StoredAttachment[];

  /**
   * The users mentioned (`<@id>`) who were members of the guild when it was posted, as they
   * appeared then (user partials), so reading never joins users for them.
   */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  mentions: UserPartialResponse[];

  /** `@everyone`/`@here` by an author holding MENTION_EVERYONE. */
  @Column({ name: 'mention_everyone', type: 'boolean', default: false })
  mentionEveryone: boolean;

  /** The guild's roles it mentions (`<@&id>`), as allowed when it was posted. */
  @Column({ name: 'mention_roles', type: 'bigint', array: true, default: () => "'{}'" })
  mentionRoles: string[];

  /** When it was pinned (null: not pinned). */
  @Column({ name: 'pinned_at', type: 'timestamptz', nullable: true })
  pinnedAt: Date | null;

  /** The nonce it was posted with under `enforce_nonce` (null otherwise). */
  @Column({ type: 'varchar', length: 25, nullable: true })
  nonce: string | null;

  /** The earlier message of the channel this one replies to (no foreign key: it may go). */
  @Column({ name: 'reference_id', type: 'bigint', nullable: true })
  referenceId: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** Set by the author's last edit. */
  @Column({ name: 'edited_at', type: 'timestamptz', nullable: true })
  editedAt: Date | null;

  /**
   * Discord's message type where the row fixes it: 20 (CHAT_INPUT_COMMAND) or 23 (CONTEXT_MENU_COMMAND)
   * for an interaction's messages; 0 otherwise (a reply's 19 follows from `reference_id`).
   */
  @Column({ type: 'smallint', default: 0 })
  type: number;

  /** Discord's message flags (128 LOADING: a deferred interaction response not written yet). */
  @Column({ type: 'integer', default: 0 })
  flags: number;

  /** The application whose interaction posted it (its bot is the author). */
  @Column({ name: 'application_id', type: 'bigint', nullable: true })
  applicationId: string | null;

  /** The interaction that posted it. */
  @Column({ name: 'interaction_id', type: 'bigint', nullable: true })
  interactionId: string | null;

  /** Discord's `interaction_metadata` of that interaction (the older `interaction` is derived). */
  @Column({ name: 'interaction_metadata', type: 'jsonb', nullable: true })
  interactionMetadata: InteractionMetadata | null;
}

/** Discord's message interaction metadata, as stored with an interaction's messages. */
export interface InteractionMetadata {
  id: string;
  type: number;
  user: UserPartialResponse;
  authorizing_integration_owners: Record<string, string>;
  /** The command's name (application commands; the older `interaction` object shows it). */
  name?: string;
  command_type?: number;
  original_response_message_id?: string;
  interacted_message_id?: string;
  target_user?: UserPartialResponse;
  target_message_id?: string;
}
