import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ActorType } from './actor';

/**
 * One audited event: every admin write and the security events of the other modules. Written in
 * the same transaction as the change it describes. `search` is a generated tsvector over the
 * action, reason, target and metadata values (GIN index `audit_log_entries_search_idx`, created
 * by the migration: TypeORM cannot describe a GIN index, so it is not synchronized here).
 */
@Entity('audit_log_entries')
@Index('audit_log_entries_created_at_idx', ['createdAt', 'id'])
@Index('audit_log_entries_actor_idx', ['actorId', 'id'])
@Index('audit_log_entries_action_idx', ['action', 'id'])
@Index('audit_log_entries_target_idx', ['targetType', 'targetId', 'id'])
@Index('audit_log_entries_search_idx', { synchronize: false })
export class AuditLogEntryEntity {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'audit_log_entries_pkey' })
  id: string;

  @Column({ name: 'actor_type', type: 'varchar', length: 16 })
  actorType: ActorType;

  @Column({ name: 'actor_id', type: 'bigint', nullable: true })
  actorId: string | null;

  /** The user behind the actor (an admin key's owner, an OAuth2 token's user). */
  @Column({ name: 'actor_user_id', type: 'bigint', nullable: true })
  actorUserId: string | null;

  @Column({ type: 'varchar', length: 64 })
  action: string;

  @Column({ name: 'target_type', type: 'varchar', length: 32, nullable: true })
  targetType: string | null;

  @Column({ name: 'target_id', type: 'varchar', length: 320, nullable: true })
  targetId: string | null;

  @Column({ type: 'varchar', length: 512, nullable: true })
  reason: string | null;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  metadata: Record<string, unknown>;

  @Column({ type: 'inet', nullable: true })
  ip: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({
    type: 'tsvector',
    select: false,
    insert: false,
    update: false,
    generatedType: 'STORED',
    asExpression: AUDIT_SEARCH_EXPRESSION(),
  })
  search?: string;
}

/**
 * The text that full-text search sees. Dots and underscores in action names split into words
 * (`ban.ip.add` → ban ip add); metadata contributes its string and number values, not its keys.
 */
export function AUDIT_SEARCH_EXPRESSION(): string {
  return (
    "setweight(to_tsvector('english'::regconfig, translate(action, '._:', '   ')), 'A') || " +
    "setweight(to_tsvector('english'::regconfig, coalesce(reason, '')), 'B') || " +
    "to_tsvector('english'::regconfig, coalesce(target_type, '') || ' ' || coalesce(target_id, '')) || " +
    'jsonb_to_tsvector(\'english\'::regconfig, metadata, \'["string", "numeric"]\')'
  );
}
