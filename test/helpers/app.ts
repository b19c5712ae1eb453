import type { DynamicModule, Type } from '@nestjs/common';
import type { ParleyApp } from '../../src/app.setup';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createApp, type CreateAppOptions } from '../../src/app.setup';
import { testHttpAdapter } from './adapter';
import { testBlobDir } from './blob-dir';

export const TEST_SECRET_KEY = 'a'.repeat(64);

// Buckets are raised so that ordinary tests never trip them; rate-limit tests set their own.
export const RELAXED_LIMITS = [
  'global',
  'discovery',
  'auth:login',
  'auth:register',
  'auth:login:mfa',
  'auth:forgot',
  'auth:verify',
  'auth:sessions',
  'oauth:token',
  'oauth:introspect',
  'webhook:execute',
  'webhook:repohost',
  'webhook:errortracker',
  'admin',
  'admin:bans',
  'admin:bulk',
]
  .map((b) => `${b}=100000/1s`)
  .join(',');

/**
 * The gateway's per-address and per-user limits, raised out of reach: every test connects from
 * 127.0.0.1, most as a handful of users. The abuse tests set their own.
 */
export const RELAXED_GATEWAY_LIMITS: Record<string, string> = {
  GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '100000',
  GATEWAY_UPGRADES_PER_ADDRESS_PER_MINUTE: '1000000',
  GATEWAY_FAILED_IDENTIFIES_PER_ADDRESS_PER_MINUTE: '1000000',
  GATEWAY_IDENTIFIES_PER_USER_PER_MINUTE: '100000',
  GATEWAY_MAX_SESSIONS_PER_USER: '10000',
};

export interface TestAppOptions {
  env?: Record<string, string | undefined>;
  imports?: Array<Type | DynamicModule>;
  /** Where log lines go (set LOG_LEVEL in `env` too): tests that count log lines. */
  logDestination?: CreateAppOptions['logDestination'];
}

/**
 * A snowflake worker id of its own for every app a test process starts. Jest runs suites in
 * several worker processes on one database, and some suites start two apps in one process: with
 * one shared WORKER_ID, two generators can mint the same id in the same millisecond (a primary
 * key conflict). Ids 1–1023, for the apps in process and the servers the suites spawn alike.
 */
let appsStarted = 0;
export function nextWorkerId(): string {
  const jestWorker = Math.max(1, Number(process.env.JEST_WORKER_ID ?? 1));
  const perProcess = 128;
  appsStarted += 1;
  return String(1 + (((jestWorker - 1) * perProcess + (appsStarted % perProcess)) % 1023));
}

/** The real app (same createApp as production) on the test database. */
export async function createTestApp(options: TestAppOptions = {}): Promise<ParleyApp> {
  const url = process.env.PARLEY_TEST_DATABASE_URL;
  if (!url) throw new Error('PARLEY_TEST_DATABASE_URL is not set: run the e2e suites through jest');
  const app = await createApp({
    env: {
      NODE_ENV: 'test',
      DATABASE_URL: url,
      DATABASE_POOL_SIZE: '4',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'parley-test-')),
      BLOB_DIR: testBlobDir(url),
      SECRET_KEY: TEST_SECRET_KEY,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      PUBLIC_URL: 'http://parley.test',
      WEB_APP_URL: 'http://app.parley.test',
      REDIS_URL: undefined,
      SMTP_URL: undefined,
      RATE_LIMITS: 'on',
      RATE_LIMIT_OVERRIDES: RELAXED_LIMITS,
      ...RELAXED_GATEWAY_LIMITS,
      TRUST_PROXY: undefined,
      WORKER_ID: nextWorkerId(),
      HTTP_ADAPTER: testHttpAdapter(),
      ...options.env,
    },
    database: { runMigrations: false },
    imports: options.imports,
    logDestination: options.logDestination,
  });
  await app.init();
  return app;
}

export const http = (app: ParleyApp) => request(app.getHttpServer());

/**
 * A GET of an absolute URL of this API (a signed archive link), with no Authorization header,
 * on `app` — whichever instance built it — with the body as a Buffer.
 */
export const fetchLink = (app: ParleyApp, url: string) =>
  http(app)
    .get(new URL(url).pathname + new URL(url).search)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });

/** A unique suffix for values that must not collide across tests and runs. */
let counter = 0;
export function unique(prefix = ''): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${process.pid.toString(36)}${counter}`;
}

/**
 * A database of the suite's own on the test server, migrated, dropped by `drop()`: for suites
 * that change what every instance on a database sees (the event log's positions), which must
 * not reach the suites running beside them.
 */
export async function isolatedDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const { createPostgresTestDatabase } = await import('../setup/database');
  const url = process.env.PARLEY_TEST_DATABASE_URL;
  if (!url) throw new Error('PARLEY_TEST_DATABASE_URL is not set: run the e2e suites through jest');
  return createPostgresTestDatabase(url);
}
