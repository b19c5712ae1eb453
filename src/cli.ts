import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { AppModule } from './app.module';
import { loadHttpPlatform } from './common/http/platform/load-platform';
import { buildOpenApiDocument, createApp } from './app.setup';
import { AppConfig } from './config/app.config';
import { EventsModule } from './infra/events/events.module';
import { RedisModule } from './infra/redis/redis.module';
import { pendingSchemaChanges, runMigrationsLocked } from './database/migrate';
import { CommonModule } from './common/common.module';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { AdminApiKeysModule } from './modules/admin/api-keys/admin-api-keys.module';
import { AdminBootstrapService } from './modules/admin/api-keys/admin-bootstrap.service';
import { rotateKeysFile } from './modules/oauth2/oidc-keys';
import { MetricsModule } from './infra/metrics/metrics.module';

/**
 * Operator CLI: `node dist/src/cli.js <command>`.
 *   migration:run | migration:revert [--all] | migration:check | migration:generate <Name>
 *   openapi [--check]
 *   admin:bootstrap --email <email>   (prints a new admin key as the last line of stdout)
 *   oidc:rotate-key [--alg RS256|EdDSA]   (new ID-token signing key in DATA_DIR/oidc-keys.json)
 */
const ROOT = resolve(__dirname, '..', '..');

async function withDataSource<T>(fn: (ds: DataSource) => Promise<T>): Promise<T> {
  const config = AppConfig.fromEnv(process.env);
  const ctx = await NestFactory.createApplicationContext(
    AppModule.forRoot(
      config,
      { runMigrations: false },
      [],
      await loadHttpPlatform(config.httpAdapter),
    ),
    {
      logger: ['error', 'warn'],
    },
  );
  try {
    return await fn(ctx.get(DataSource));
  } finally {
    await ctx.close();
  }
}

/**
 * The committed document belongs to no instance: its server is a variable, defaulting to a local
 * one, that Swagger UI and client generators let the reader fill in. A running server's
 * /docs/openapi.json names its own PUBLIC_URL instead.
 */
const COMMITTED_SERVERS = [
  {
    url: '{public_url}',
    description: 'A Parley instance',
    variables: {
      public_url: {
        default: 'http://localhost:8080',
        description: 'The instance’s PUBLIC_URL (the API is under /v1)',
      },
    },
  },
];

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortDeep((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

function migrationSource(className: string, up: string[], down: string[]): string {
  const q = (s: string) => `    await queryRunner.query(${JSON.stringify(s)});`;
  return `import { MigrationInterface, QueryRunner } from 'typeorm';

export class ${className} implements MigrationInterface {
  name = '${className}';

  public async up(queryRunner: QueryRunner): Promise<void> {
${up.map(q).join('\n')}
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
${down.map(q).join('\n')}
  }
}
`;
}

async function main(): Promise<number> {
  const [command, ...args] = process.argv.slice(2);
  // The operator CLI is not a server: it never opens the metrics listener (a running server
  // next to it holds METRICS_PORT).
  delete process.env.METRICS_PORT;
  switch (command) {
    case 'migration:run':
      return withDataSource(async (ds) => {
        const ran = await runMigrationsLocked(ds);
        console.log(ran.length ? `applied: ${ran.join(', ')}` : 'no pending migrations');
        return 0;
      });
    case 'migration:revert':
      return withDataSource(async (ds) => {
        // `--all` reverts every applied migration (CI checks that each down() works).
        const all = args.includes('--all');
        let reverted = 0;
        do {
          const applied = await ds.query<unknown[]>('SELECT 1 FROM migrations LIMIT 1');
          if (applied.length === 0) break;
          await ds.undoLastMigration({ transaction: 'each' });
          reverted += 1;
        } while (all);
        console.log(reverted ? `reverted ${reverted} migration(s)` : 'no migration to revert');
        return 0;
      });
    case 'migration:check':
      return withDataSource(async (ds) => {
        await runMigrationsLocked(ds);
        const { up } = await pendingSchemaChanges(ds);
        if (up.length === 0) {
          console.log('entities and migrations agree');
          return 0;
        }
        console.error(
          'entities and migrations disagree; a new migration would run:\n' + up.join(';\n'),
        );
        return 1;
      });
    case 'migration:generate': {
      const name = args[0];
      if (!name || !/^[A-Z][A-Za-z0-9]*$/.test(name)) {
        console.error('usage: migration:generate <PascalCaseName>');
        return 2;
      }
      return withDataSource(async (ds) => {
        await runMigrationsLocked(ds);
        const { up, down } = await pendingSchemaChanges(ds);
        if (up.length === 0) {
          console.log('no changes: entities and migrations agree');
          return 0;
        }
        const ts = Date.now();
        const className = `${name}${ts}`;
        const file = join(ROOT, 'migrations', `${ts}-${name}.ts`);
        writeFileSync(file, migrationSource(className, up, down.reverse()));
        const index = join(ROOT, 'migrations', 'index.ts');
        let src = readFileSync(index, 'utf8');
        src = `import { ${className} } from './${ts}-${name}';\n` + src;
        src = src.replace(/= \[([^\]]*)\];/, (_m, inner: string) => {
          const items = inner
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
          items.push(className);
          return `= [\n  ${items.join(',\n  ')},\n];`;
        });
        writeFileSync(index, src);
        console.log(
          `wrote ${file} and registered it in migrations/index.ts — read it before committing`,
        );
        return 0;
      });
    }
    case 'openapi': {
      const check = args.includes('--check');
      // Deterministic output whatever the local configuration says.
      const env = {
        PUBLIC_URL: 'http://localhost:8080',
        WEB_APP_URL: 'http://localhost:8080',
        LOG_LEVEL: 'error',
      };
      const app = await createApp({ env });
      try {
        await app.init();
        const doc = sortDeep({
          ...buildOpenApiDocument(app, AppConfig.fromEnv({ ...process.env, ...env })),
          servers: COMMITTED_SERVERS,
        });
        const text = JSON.stringify(doc, null, 2) + '\n';
        const file = join(ROOT, 'openapi', 'openapi.json');
        if (check) {
          const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
          if (current !== text) {
            console.error(
              'openapi/openapi.json is stale: run `npm run openapi` and commit the result',
            );
            return 1;
          }
          console.log('openapi/openapi.json is fresh');
          return 0;
        }
        mkdirSync(join(ROOT, 'openapi'), { recursive: true });
        writeFileSync(file, text);
        console.log(`wrote ${file}`);
        return 0;
      } finally {
        await app.close();
      }
    }
    case 'oidc:rotate-key': {
      // A new ID-token signing key first in DATA_DIR/oidc-keys.json; older keys stay published.
      const config = AppConfig.fromEnv(process.env);
      const at = args.indexOf('--alg');
      const alg = at >= 0 ? args[at + 1] : 'RS256';
      if (alg !== 'RS256' && alg !== 'EdDSA') {
        console.error('usage: cli.js oidc:rotate-key [--alg RS256|EdDSA]');
        return 2;
      }
      if (config.oidc.signingKey) {
        console.error(
          'OIDC_SIGNING_KEY is set, so the keys file is not used: put the new key in OIDC_SIGNING_KEY and the old one in OIDC_PREVIOUS_KEYS',
        );
        return 1;
      }
      const rotated = await rotateKeysFile(config.dataDir, alg);
      console.log(
        `new signing key ${rotated.kid} in ${rotated.file} (${rotated.keys} key(s) published); restart every instance to sign with it`,
      );
      return 0;
    }
    case 'admin:bootstrap': {
      const at = args.indexOf('--email');
      const email = at >= 0 ? args[at + 1] : undefined;
      if (!email) {
        console.error('usage: npm run admin:bootstrap -- --email <email>');
        return 2;
      }
      return adminBootstrap(email);
    }
    default:
      console.error(
        'usage: cli.js migration:run | migration:revert | migration:check | migration:generate <Name> | openapi [--check] | admin:bootstrap --email <email> | oidc:rotate-key [--alg RS256|EdDSA]',
      );
      return 2;
  }
}

/**
 * Creates or promotes the user with `email` to ACL `*` and prints a new admin key as the last line
 * of stdout. Only what that needs is started (no HTTP server, no jobs); on the embedded database
 * it migrates a fresh DATA_DIR or uses the server of an app already running on it.
 */
async function adminBootstrap(email: string): Promise<number> {
  const config = AppConfig.fromEnv(process.env);
  @Module({
    imports: [
      ConfigModule.forRoot(config),
      MetricsModule,
      CommonModule,
      DatabaseModule.forRoot({ runMigrations: true, attachToRunningEmbedded: true }),
      // Users announce their changes (the outbox); nothing is relayed from the CLI.
      RedisModule,
      EventsModule,
      AdminApiKeysModule,
    ],
  })
  class AdminBootstrapModule {}
  const ctx = await NestFactory.createApplicationContext(AdminBootstrapModule, {
    logger: ['error', 'warn'],
  });
  let result: Awaited<ReturnType<AdminBootstrapService['bootstrap']>>;
  try {
    result = await ctx.get(AdminBootstrapService).bootstrap(email);
  } finally {
    await ctx.close();
  }
  // Printed after the shutdown, whose log lines must not follow the key.
  console.log(
    `${result.created ? 'created' : 'promoted'} user ${result.userId} <${email.trim()}> with ACL *` +
      (result.created ? ' (no password yet: use "forgot password" to set one)' : ''),
  );
  console.log(
    `admin key ${result.keyId}, shown once — send it as "Authorization: Admin <key>" (Swagger UI: Authorize → adminApiKey):`,
  );
  console.log(result.key);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
