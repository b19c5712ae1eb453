import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { checkWritesAnnounced, installWriteAudit } from './write-audit';
import {
  startEmbeddedPostgres,
  type EmbeddedPostgresHandle,
} from '../../src/database/embedded-postgres';

export interface TestDatabase {
  url: string;
  kind: 'postgres' | 'embedded';
  drop(): Promise<void>;
}

/** Runs every migration once before the workers start (they then boot without migrating). */
async function migrate(url: string): Promise<void> {
  const ds = new DataSource({
    type: 'postgres',
    url,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
  });
  await ds.initialize();
  try {
    await ds.runMigrations({ transaction: 'each' });
  } finally {
    await ds.destroy();
  }
}

/** A fresh database on the PostgreSQL server of TEST_DATABASE_URL, dropped afterwards. */
export async function createPostgresTestDatabase(baseUrl: string): Promise<TestDatabase> {
  const name = `parley_test_${Date.now()}_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  await installWriteAudit(url.toString());
  return {
    url: url.toString(),
    kind: 'postgres',
    drop: async () => {
      // Every write of the run announced (write-audit.ts); the database goes either way.
      const checked = checkWritesAnnounced(url.toString());
      await checked.catch(() => undefined);
      const c = new Client({ connectionString: baseUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
      await checked;
    },
  };
}

/** The embedded PostgreSQL server in a temporary folder (no fsync), removed afterwards. */
export async function createEmbeddedTestDatabase(): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-embedded-test-'));
  // As root the server runs as the OS user `postgres`, which must be able to enter the folder.
  chmodSync(dir, 0o755);
  const handle: EmbeddedPostgresHandle = await startEmbeddedPostgres({
    dataDir: join(dir, 'postgres'),
    passwordFile: join(dir, 'postgres.password'),
    ephemeral: true,
  });
  await migrate(handle.url);
  await installWriteAudit(handle.url);
  return {
    url: handle.url,
    kind: 'embedded',
    drop: async () => {
      const checked = checkWritesAnnounced(handle.url);
      await checked.catch(() => undefined);
      await handle.stop();
      await checked;
    },
  };
}
