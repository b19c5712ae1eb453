import type { ClientConfig } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * Settings for a connection of its own, outside the pool, to the application database — for what
 * needs a session rather than a transaction: LISTEN (notifications.ts), a session advisory lock
 * (the event relay's leadership). Behind PgBouncer in transaction mode these must reach
 * PostgreSQL directly (ARCHITECTURE.md §12). `role` names it in pg_stat_activity.
 */
export function sessionClientConfig(db: DataSource, role: string): ClientConfig {
  const o = db.options as { url?: string; extra?: { application_name?: string } };
  return {
    connectionString: o.url,
    application_name: `${o.extra?.application_name ?? 'parley'}-${role}`,
    connectionTimeoutMillis: 5_000,
    keepAlive: true,
  };
}
