import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';
import { ChannelEntity } from '../guilds/channel.entity';
import { GuildEntity } from '../guilds/guild.entity';
import { UserEntity } from '../users/user.entity';

/** WebhookType: 1 incoming. (2, channel follower, is not implemented.) */
export enum WebhookType {
  Incoming = 1,
  ChannelFollower = 2,
}

/**
 * An incoming webhook. Its token is stored twice and never in plaintext: SHA-256 (compared in
 * constant time on execute) and AES-256-GCM under SECRET_KEY (managers may read it back).
 */
@Entity('webhooks')
export class WebhookEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'webhooks_pkey' })
  id: string;

  @Column({ type: 'smallint', default: WebhookType.Incoming })
  type: number;

  @Index('webhooks_guild_id_idx')
  @Column({ name: 'guild_id', type: 'bigint' })
  guildId: string;

  @ManyToOne(() => GuildEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'guild_id', foreignKeyConstraintName: 'webhooks_guild_id_fkey' })
  guild?: GuildEntity;

  @Index('webhooks_channel_id_idx')
  @Column({ name: 'channel_id', type: 'bigint' })
  channelId: string;

  @ManyToOne(() => ChannelEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'channel_id', foreignKeyConstraintName: 'webhooks_channel_id_fkey' })
  channel?: ChannelEntity;

  /** The creator; null once their account is gone. */
  @Column({ name: 'user_id', type: 'bigint', nullable: true })
  userId: string | null;

  @ManyToOne(() => UserEntity, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'webhooks_user_id_fkey' })
  user?: UserEntity | null;

  @Column({ type: 'varchar', length: 80 })
  name: string;

  /** Avatar hash (assets/avatars/<webhook id>/<hash>.<ext>). */
  @Column({ type: 'varchar', length: 64, nullable: true })
  avatar: string | null;

  @Column({ name: 'token_hash', type: 'bytea' })
  tokenHash: Buffer;

  @Column({ name: 'token_encrypted', type: 'text' })
  tokenEncrypted: string;

  /**
   * Inbound signing secret (HMAC-SHA256 key for `X-Hub-Signature-256` / `Sentry-Hook-Signature`),
   * AES-256-GCM under SECRET_KEY like the token; null when deliveries need no signature.
   */
  @Column({ name: 'signing_secret_encrypted', type: 'text', nullable: true })
  signingSecretEncrypted: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
