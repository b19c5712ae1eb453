import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import type { Actor } from './actor';

/** What a module records about one change. */
export interface AuditEvent {
  actor: Actor;
  /** Dotted verb, e.g. `admin_api_key.create`, `ban.ip.add`, `auth.login.failed`. */
  action: string;
  targetType?: string | null;
  targetId?: string | null;
  /** The `X-Audit-Log-Reason` of the request, when given. */
  reason?: string | null;
  metadata?: Record<string, unknown>;
  ip?: string | null;
}

/**
 * Writes audit entries. The writer takes the caller's EntityManager: an entry commits or rolls
 * back with the change it describes, so a failed write leaves no entry and a committed change
 * always has one. Pass the manager of the transaction that makes the change; a manager outside a
 * transaction (an event with no change, e.g. a failed login) writes on its own.
 */
@Injectable()
export class AuditLog {
  constructor(private readonly snowflakes: SnowflakeService) {}

  async record(manager: EntityManager, event: AuditEvent): Promise<string> {
    const id = this.snowflakes.next();
    await manager.query(
      `INSERT INTO audit_log_entries
         (id, actor_type, actor_id, actor_user_id, action, target_type, target_id, reason, metadata, ip)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        id,
        event.actor.type,
        event.actor.id,
        event.actor.userId,
        event.action,
        event.targetType ?? null,
        event.targetId ?? null,
        event.reason ?? null,
        JSON.stringify(event.metadata ?? {}),
        event.ip ?? null,
      ],
    );
    return id;
  }
}
