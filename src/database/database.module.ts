import {
  DynamicModule,
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Metrics } from '../infra/metrics/metrics';
import { MIGRATIONS } from '../../migrations';
import { AppConfig } from '../config/app.config';
import type { EmbeddedPostgresHandle } from './embedded-postgres';
import { startEmbedded, takePrestartedEmbedded } from './embedded-start';
import { runMigrationsLocked } from './migrate';
import { DatabaseNotifications } from './notifications';

const EMBEDDED = Symbol('EMBEDDED_POSTGRES');

/** Options that decide whether migrations run at start-up (the CLI turns them off). */
export interface DatabaseModuleOptions {
  runMigrations: boolean;
  /** Use the embedded server of a running app on the same DATA_DIR (operator CLI). */
  attachToRunningEmbedded?: boolean;
}
export const DATABASE_OPTIONS = Symbol('DATABASE_OPTIONS');

/** Starts the embedded database when DATABASE_URL is not set, and stops it on shutdown. */
@Module({})
class EmbeddedDatabaseModule implements OnApplicationShutdown {
  constructor(
    @Inject(EMBEDDED) private readonly embedded: EmbeddedPostgresHandle | null,
    private readonly moduleRef: ModuleRef,
  ) {}

  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: EmbeddedDatabaseModule,
      providers: [
        {
          provide: EMBEDDED,
          inject: [AppConfig],
          useFactory: (config: AppConfig) =>
            takePrestartedEmbedded() ?? startEmbedded(config, options),
        },
      ],
      exports: [EMBEDDED],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.embedded) return;
    // The pool first, whichever module's hook runs first: a server stopped under open
    // connections logs one FATAL line per connection it terminates.
    const dataSource = this.moduleRef.get(DataSource, { strict: false });
    if (dataSource?.isInitialized) await dataSource.destroy().catch(() => undefined);
    await this.embedded.stop();
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

/** Reports the pool's sizes to the metrics at each scrape (node-postgres Pool counters). */
@Injectable()
class PoolMetrics implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly metrics: Metrics,
  ) {}
  onModuleInit(): void {
    if (!this.metrics.enabled) return;
    this.metrics.onScrape(() => {
      const pool = (this.dataSource.driver as unknown as { master?: PoolCounters }).master;
      if (pool) this.metrics.databasePool(pool.totalCount, pool.idleCount, pool.waitingCount);
    });
  }
}

interface PoolCounters {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * PostgreSQL through TypeORM: DATABASE_URL when set, otherwise the embedded PostgreSQL server
 * kept in DATA_DIR/postgres. Both run the same migrations; `synchronize` is never on.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseModuleOptions = { runMigrations: true }) {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          imports: [EmbeddedDatabaseModule.forRoot(options)],
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
              max: config.database.poolSize,
              connectionTimeoutMillis: 5_000,
              application_name: 'parley',
            },
          }),
        }),
      ],
      providers: [
        { provide: DATABASE_OPTIONS, useValue: options },
        MigrationRunner,
        PoolMetrics,
        DatabaseNotifications,
      ],
      exports: [TypeOrmModule, DatabaseNotifications],
    };
  }
}
