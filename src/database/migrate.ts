import type { DataSource } from 'typeorm';

// Any constant shared by all Parley instances: only one of them migrates at a time.
const MIGRATION_LOCK = 7_214_503_113;

/** Runs pending migrations under a PostgreSQL advisory lock so N instances can start together. */
export async function runMigrationsLocked(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const ran = await dataSource.runMigrations({ transaction: 'each' });
    return ran.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
}

/** SQL statements that would bring the schema in line with the entities (empty = in sync). */
export async function pendingSchemaChanges(
  dataSource: DataSource,
): Promise<{ up: string[]; down: string[] }> {
  const log = await dataSource.driver.createSchemaBuilder().log();
  return {
    up: log.upQueries.map((q) => q.query),
    down: log.downQueries.map((q) => q.query),
  };
}
