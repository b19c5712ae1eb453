import { CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../../users/user.entity';
import { MessageEntity } from '../message.entity';

/** One user's reaction with one unicode emoji to one message. */
@Entity('message_reactions')
export class MessageReactionEntity {
  @PrimaryColumn({
    name: 'message_id',
    type: 'bigint',
    primaryKeyConstraintName: 'message_reactions_pkey',
  })
  messageId: string;

  /** The emoji itself (its UTF-8 text), as in Discord's `emoji.name` of a unicode emoji. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'message_reactions_pkey' })
  emoji: string;

  @Index('message_reactions_user_id_idx')
  @PrimaryColumn({
    name: 'user_id',
    type: 'bigint',
    primaryKeyConstraintName: 'message_reactions_pkey',
  })
  userId: string;

  @ManyToOne(() => MessageEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'message_id', foreignKeyConstraintName: 'message_reactions_message_id_fkey' })
  message?: MessageEntity;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'message_reactions_user_id_fkey' })
  user?: UserEntity;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
