import type { AuditLogEntryEntity } from '../../audit/audit-log.entity';
import type { AuditLogEntryResponse } from './audit-log.response';

export function toAuditLogEntry(entry: AuditLogEntryEntity): AuditLogEntryResponse {
  return {
    id: entry.id,
    actor_type: entry.actorType,
    actor_id: entry.actorId,
    actor_user_id: entry.actorUserId,
    action: entry.action,
    target_type: entry.targetType,
    target_id: entry.targetId,
    reason: entry.reason,
    metadata: entry.metadata,
    ip: entry.ip,
    created_at: entry.createdAt.toISOString(),
  };
}
