import { Logger } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AppConfig } from '../config/app.config';
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from './embedded-postgres';

/** Whether to use the server a running app already started on this DATA_DIR (operator CLI). */
export interface EmbeddedStartOptions {
  attachToRunningEmbedded?: boolean;
}

/**
 * Starts the embedded PostgreSQL server of `DATA_DIR/postgres` when `DATABASE_URL` is not set
 * (null otherwise), warning about a database left by the former embedded engine.
 */
export async function startEmbedded(
  config: AppConfig,
  options: EmbeddedStartOptions,
  onSpawned?: () => void,
): Promise<EmbeddedPostgresHandle | null> {
  if (config.database.url) return null;
  const logger = new Logger('Database');
  const legacy = join(config.dataDir, 'db');
  if (existsSync(join(legacy, 'PG_VERSION'))) {
    logger.warn(
      `${legacy} holds a database of the former embedded engine (PGlite), which is no longer ` +
        `read; the embedded database is now a PostgreSQL server in ${join(config.dataDir, 'postgres')}. ` +
        `To keep that data, start the previous Parley release on it and copy it with pg_dump ` +
        `into the new server (psql on the port it logs); otherwise delete ${legacy}.`,
    );
  }
  const dir = join(config.dataDir, 'postgres');
  const handle = await startEmbeddedPostgres({
    dataDir: dir,
    passwordFile: join(config.dataDir, 'postgres.password'),
    port: config.database.embeddedPort,
    attach: options.attachToRunningEmbedded,
    onSpawned,
    log: (level, message) => {
      if (level === 'warn' || level === 'error') logger.warn(message);
      else logger.debug(message);
    },
  });
  logger.log(
    `embedded PostgreSQL in ${handle.dataDir} on 127.0.0.1:${handle.port}, pid ${handle.pid}`,
  );
  return handle;
}

let prestarted: Promise<EmbeddedPostgresHandle | null> | undefined;

/**
 * main.ts starts the embedded server before it loads the application's modules, so PostgreSQL
 * starts while Node compiles them (most of a restart's time) instead of after. Resolves once the
 * server process is spawned, or the start failed (then `onFailure` runs).
 */
export function prestartEmbedded(
  config: AppConfig,
  onFailure: (err: Error) => void,
): Promise<void> {
  return new Promise<void>((spawned) => {
    prestarted = startEmbedded(config, {}, spawned);
    // First in line: main.ts reports the failure once and exits, before the module that waits
    // for this server logs it again and Nest goes on initialising the modules it can.
    prestarted.then(
      () => spawned(),
      (err: Error) => {
        onFailure(err);
        spawned();
      },
    );
  });
}

/** The server main.ts started, once (then undefined: the next app starts its own). */
export function takePrestartedEmbedded(): Promise<EmbeddedPostgresHandle | null> | undefined {
  const taken = prestarted;
  prestarted = undefined;
  return taken;
}
