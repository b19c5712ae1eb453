import {
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { AppConfig } from '../config/app.config';
import { EmbeddedPostgresHandle, startEmbeddedPostgres } from './embedded-postgres';
import { runMigrationsLocked } from './migrate';

const EMBEDDED = Symbol('EMBEDDED_POSTGRES');

/** Options that decide whether migrations run at start-up (the CLI turns them off). */
export interface DatabaseModuleOptions {
  runMigrations: boolean;
}
export const DATABASE_OPTIONS = Symbol('DATABASE_OPTIONS');

/** Starts the embedded database when DATABASE_URL is not set, and stops it on shutdown. */
@Module({
  providers: [
    {
      provide: EMBEDDED,
      inject: [AppConfig],
      useFactory: async (config: AppConfig) => {
        if (config.database.url) return null;
        const dir = join(config.dataDir, 'db');
        const handle = await startEmbeddedPostgres(dir);
        new Logger('Database').log(`embedded PostgreSQL (PGlite) in ${dir}, pid ${handle.pid}`);
        return handle;
      },
    },
  ],
  exports: [EMBEDDED],
})
class EmbeddedDatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(EMBEDDED) private readonly embedded: EmbeddedPostgresHandle | null) {}
  async onApplicationShutdown(): Promise<void> {
    await this.embedded?.stop();
  }
}

@Injectable()
class MigrationRunner implements OnModuleInit {
  private readonly logger = new Logger('Migrations');
  constructor(
    private readonly dataSource: DataSource,
    @Inject(DATABASE_OPTIONS) private readonly options: DatabaseModuleOptions,
  ) {}
  async onModuleInit(): Promise<void> {
    if (!this.options.runMigrations) return;
    const ran = await runMigrationsLocked(this.dataSource);
    if (ran.length) this.logger.log(`applied ${ran.length} migration(s): ${ran.join(', ')}`);
  }
}

/**
 * PostgreSQL through TypeORM: DATABASE_URL when set, otherwise the embedded PostgreSQL (PGlite)
 * kept in DATA_DIR/db. Both run the same migrations; `synchronize` is never on.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseModuleOptions = { runMigrations: true }) {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          imports: [EmbeddedDatabaseModule],
          inject: [AppConfig, EMBEDDED],
          useFactory: (config: AppConfig, embedded: EmbeddedPostgresHandle | null) => ({
            type: 'postgres' as const,
            url: config.database.url ?? embedded!.url,
            autoLoadEntities: true,
            synchronize: false,
            migrationsRun: false,
            migrations: MIGRATIONS,
            migrationsTableName: 'migrations',
            uuidExtension: 'pgcrypto' as const,
            // Failed queries are logged by the exception filter, without their parameters.
            logging: false,
            retryAttempts: config.env === 'test' ? 1 : 5,
            retryDelay: 1000,
            extra: {
              max: embedded ? 4 : config.database.poolSize,
              connectionTimeoutMillis: 30_000,
              application_name: 'parley',
            },
          }),
        }),
      ],
      providers: [{ provide: DATABASE_OPTIONS, useValue: options }, MigrationRunner],
      exports: [TypeOrmModule],
    };
  }
}
