import type { EntityManager } from 'typeorm';
import type { AuditContext } from '../../audit/audit-context';
import type { AuditLog } from '../../audit/audit-log.service';

/** Records a change a user made to their own account's factors (`mfa.*`), in its transaction. */
export function recordOwnAccountChange(
  log: AuditLog,
  manager: EntityManager,
  audit: AuditContext,
  userId: string,
  action: string,
  metadata?: Record<string, unknown>,
): Promise<string> {
  return log.record(manager, {
    actor: audit.actor,
    action,
    targetType: 'user',
    targetId: userId,
    reason: audit.reason,
    ip: audit.ip,
    metadata,
  });
}
