import { Client } from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeDatabaseError, isDatabaseUnavailable } from '../errors/database-unavailable';

export interface WaitForDatabaseOptions {
  /** First delay between attempts; doubles up to `maxDelayMs`. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Per-attempt connect timeout. */
  connectTimeoutMs?: number;
  log: { warn(message: string): void; info(message: string): void };
}

/** `host:port` of a postgres:// URL, for messages (never the credentials). */
export function databaseTarget(url: string): string {
  try {
    const u = new URL(url);
    const host = u.searchParams.get('host') ?? (u.hostname || 'localhost');
    return `${host}:${u.searchParams.get('port') ?? (u.port || '5432')}`;
  } catch {
    return 'the configured DATABASE_URL';
  }
}

/**
 * Before the app boots (main.ts, outside tests): waits, with exponential backoff, until the
 * PostgreSQL server of `url` accepts a connection, logging each wait — so an API started before
 * its database (compose, Kubernetes) waits for it instead of crashing after TypeORM's retries.
 * Only "unreachable" errors (isDatabaseUnavailable) are waited out: a wrong password or a
 * missing database returns at once and the boot reports it.
 */
export async function waitForDatabase(url: string, options: WaitForDatabaseOptions): Promise<void> {
  const { log, initialDelayMs = 1_000, maxDelayMs = 15_000, connectTimeoutMs = 5_000 } = options;
  const target = databaseTarget(url);
  for (let attempt = 1; ; attempt++) {
    const client = new Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
    // A failed connect may still emit 'error' afterwards; it is handled below.
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end().catch(() => undefined);
      if (attempt > 1) log.info(`PostgreSQL at ${target} accepts connections (attempt ${attempt})`);
      return;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (!isDatabaseUnavailable(err)) return;
      const delay = Math.min(maxDelayMs, initialDelayMs * 2 ** (attempt - 1));
      log.warn(
        `waiting for PostgreSQL at ${target} (attempt ${attempt}, next in ${delay / 1000} s): ` +
          describeDatabaseError(err),
      );
      await sleep(delay);
    }
  }
}
