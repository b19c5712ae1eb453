import { Check, Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The outbox of realtime events (ARCHITECTURE.md §7): written in the transaction of the change
 * that causes each event (RealtimeEvents.publish), numbered by the relay (`position`), kept for
 * the retention window. Read and written with SQL by the events module only.
 */
@Entity('realtime_events')
@Index('realtime_events_pending_idx', ['id'], { where: '"position" IS NULL' })
@Index('realtime_events_position_idx', ['position'], {
  unique: true,
  where: '"position" IS NOT NULL',
})
export class RealtimeEventEntity {
  /** The event's stable id: the order it was written in. */
  @PrimaryGeneratedColumn('increment', {
    type: 'bigint',
    primaryKeyConstraintName: 'realtime_events_pkey',
  })
  id: string;

  /** Its place in the log, gap-free, once the relay numbered it (null until then). */
  @Column({ type: 'bigint', nullable: true })
  position: string | null;

  @Column({ type: 'varchar', length: 64 })
  type: string;

  @Column({ name: 'guild_id', type: 'bigint', nullable: true })
  guildId: string | null;

  @Column({ name: 'channel_id', type: 'bigint', nullable: true })
  channelId: string | null;

  @Column({ name: 'user_id', type: 'bigint', nullable: true })
  userId: string | null;

  @Column({ name: 'author_id', type: 'bigint', nullable: true })
  authorId: string | null;

  @Column({ name: 'mention_ids', type: 'bigint', array: true, nullable: true })
  mentionIds: string[] | null;

  /** The payload (`d`) as JSON text, sent as it is. */
  @Column({ type: 'text' })
  data: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}

/** The log's head: the last position handed out (one row). */
@Entity('realtime_event_log')
@Check('realtime_event_log_single_row', '"id" = 1')
export class RealtimeEventLogEntity {
  @PrimaryColumn({ type: 'smallint', primaryKeyConstraintName: 'realtime_event_log_pkey' })
  id: number;

  @Column({ name: 'last_position', type: 'bigint', default: '0' })
  lastPosition: string;
}
