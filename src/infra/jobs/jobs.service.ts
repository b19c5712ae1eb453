import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import PgBoss from 'pg-boss';
import { DataSource, type EntityManager } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';
import { AppConfig } from '../../config/app.config';
import { Metrics } from '../metrics/metrics';
import { tracing } from '../tracing/trace-hooks';

/** A job as a handler receives it (pg-boss metadata included, e.g. to know the last attempt). */
export type JobOf<T> = PgBoss.JobWithMetadata<T>;

/** A queue and its worker, declared by a module in onModuleInit. */
export interface QueueDefinition<T extends object> {
  /** Queue name (`[a-z0-9-]`). */
  name: string;
  /**
   * Attempts after the first (a thrown error, or a job left `active` by a crashed process past
   * `expireInSeconds`, is retried on any instance).
   */
  retryLimit: number;
  /** Seconds before the first retry (doubled per attempt, with jitter). */
  retryDelaySeconds: number;
  /**
   * How long one attempt may run before it counts as failed (and is retried): a live worker
   * gives up on its handler then; a job left `active` by a crashed process is failed (retried)
   * by the first maintenance pass of any instance after that.
   */
  expireInSeconds: number;
  /** Called once per job; resolve = completed, throw = failed (retried while attempts remain). */
  handler: (job: JobOf<T>) => Promise<void>;
  /**
   * Called once for a job that failed its last attempt, however it failed (thrown error or
   * expiry after a crash): pg-boss moves it to the dead-letter queue `<name>-failed`.
   */
  onFailed?: (data: T, error: string) => Promise<void>;
}

/** Worker polling interval: modest, instances share two cores in small deployments. */
const POLL_SECONDS = 2;
/**
 * pg-boss's own maintenance (expiring crashed jobs, archiving, pruning): every 2 minutes at most,
 * more often when a queue has a shorter expiry, so that a job left behind by a crashed process
 * is retried soon after its expiry (at most half of it later).
 */
const MAX_MAINTENANCE_SECONDS = 120;

/** The maintenance interval for these queues' expiries (1–120 s). */
function maintenanceIntervalSeconds(expiries: number[]): number {
  const shortest = Math.min(MAX_MAINTENANCE_SECONDS * 2, ...expiries);
  return Math.max(1, Math.floor(shortest / 2));
}

/**
 * Background jobs on pg-boss in the application's own database (DESIGN.md §2): its schema
 * `pgboss` sits next to Parley's tables, on the embedded server as on DATABASE_URL. Any number
 * of instances share the queues; each one runs the workers, and a job is fetched by exactly one
 * (SKIP LOCKED). Jobs are enqueued on the caller's transaction (`send(manager, …)`), so a job
 * exists if and only if the rows that asked for it were committed.
 *
 * Life cycle: started at application bootstrap (after migrations), stopped before the
 * application shuts down — workers stop fetching, jobs in flight get `shutdown.timeoutMs` to
 * finish, and what is still running then is failed back to the queue (retried elsewhere) before
 * the database pool and the embedded server close.
 */
// Any constant shared by all Parley instances (the migrations use another).
const QUEUE_LOCK = 7_214_503_114;

@Injectable()
export class JobsService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly queues = new Map<string, QueueDefinition<object>>();
  private readonly workerIds = new Map<string, string>();
  private boss: PgBoss | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  /** Declares a queue and its worker (call from onModuleInit). */
  define<T extends object>(queue: QueueDefinition<T>): void {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(queue.name)) throw new Error(`bad queue name ${queue.name}`);
    if (this.queues.has(queue.name)) throw new Error(`queue ${queue.name} defined twice`);
    this.queues.set(queue.name, queue as unknown as QueueDefinition<object>);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.queues.size === 0) return;
    markWorkerSettlementsHandled((message) => this.logger.warn(message));
    const url = (this.db.options as PostgresDataSourceOptions).url;
    if (!url) throw new Error('jobs: the data source has no connection URL');
    const boss = new PgBoss({
      connectionString: url,
      application_name: 'parley-jobs',
      max: 3,
      // No cron schedules: the timekeeper would poll for nothing.
      schedule: false,
      supervise: true,
      maintenanceIntervalSeconds: maintenanceIntervalSeconds(
        [...this.queues.values()].map((q) => q.expireInSeconds),
      ),
    });
    boss.on('error', (err: Error) => this.logger.warn(`pg-boss: ${err.message}`));
    await boss.start();
    this.boss = boss;
    this.metrics.onScrape(async () => {
      for (const name of this.queues.keys()) {
        this.metrics.jobQueueDepth(name, await boss.getQueueSize(name));
      }
    });
    // Instances starting together on a new database would create the same queues at once, and
    // pg-boss's createQueue (a partition per queue) deadlocks then: one instance at a time.
    await this.withQueueLock(async () => {
      for (const queue of this.queues.values()) {
        const deadLetter = `${queue.name}-failed`;
        if (queue.onFailed) {
          await boss.createQueue(deadLetter, {
            name: deadLetter,
            retryLimit: 5,
            retryDelay: 5,
            retryBackoff: true,
            expireInSeconds: 60,
          });
        }
        await boss.createQueue(queue.name, {
          name: queue.name,
          retryLimit: queue.retryLimit,
          retryDelay: queue.retryDelaySeconds,
          retryBackoff: true,
          expireInSeconds: queue.expireInSeconds,
          // pg-boss refuses a `deadLetter` key that is not a string, even undefined.
          ...(queue.onFailed ? { deadLetter } : {}),
        });
      }
    });
    for (const queue of this.queues.values()) {
      const deadLetter = `${queue.name}-failed`;
      const workerId = await boss.work<object>(
        queue.name,
        { includeMetadata: true, batchSize: 1, pollingIntervalSeconds: POLL_SECONDS },
        async ([job]) => {
          if (!job) return;
          try {
            const hooks = tracing.hooks;
            if (hooks) await hooks.job(queue.name, () => queue.handler(job));
            else await queue.handler(job);
          } catch (err) {
            this.metrics.jobFailed(queue.name);
            throw err;
          }
        },
      );
      this.workerIds.set(queue.name, workerId);
      const onFailed = queue.onFailed;
      if (onFailed) {
        await boss.work<object>(
          deadLetter,
          { includeMetadata: true, batchSize: 1, pollingIntervalSeconds: POLL_SECONDS },
          async ([job]) => {
            if (job) await onFailed(job.data, errorMessageOf(job.output));
          },
        );
      }
    }
  }

  /**
   * Enqueues a job on the caller's transaction: it is visible to workers only once `manager`'s
   * transaction commits, and vanishes if it rolls back. Returns the job id.
   *
   * The job carries this instance's retry and expiry settings: pg-boss keeps a queue's settings
   * from its first creation (createQueue does nothing for an existing queue), so a changed
   * configuration would otherwise never reach the jobs.
   */
  async send<T extends object>(manager: EntityManager, queue: string, data: T): Promise<string> {
    const boss = this.started();
    const definition = this.queues.get(queue);
    if (!definition) throw new Error(`unknown queue ${queue}`);
    const runner = manager.queryRunner;
    if (!runner?.isTransactionActive) throw new Error('jobs: send() needs an open transaction');
    const id = await boss.send(queue, data, {
      retryLimit: definition.retryLimit,
      retryDelay: definition.retryDelaySeconds,
      retryBackoff: true,
      expireInSeconds: definition.expireInSeconds,
      db: {
        executeSql: async (text: string, values: unknown[]) => ({
          rows: (await runner.query(text, values, true)).records as unknown[],
        }),
      },
    });
    if (!id) throw new Error(`jobs: ${queue} refused the job`);
    return id;
  }

  /** Runs `work` holding a database-wide advisory lock (released however `work` ends). */
  private async withQueueLock(work: () => Promise<void>): Promise<void> {
    const runner = this.db.createQueryRunner();
    await runner.connect();
    try {
      await runner.query('SELECT pg_advisory_lock($1)', [QUEUE_LOCK]);
      await work();
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [QUEUE_LOCK]).catch(() => undefined);
      await runner.release();
    }
  }

  /** After a commit that enqueued work: lets this instance's worker fetch it now, not at its next poll. */
  nudge(queue: string): void {
    const id = this.workerIds.get(queue);
    if (id && this.boss) this.boss.notifyWorker(id);
  }

  async beforeApplicationShutdown(): Promise<void> {
    const boss = this.boss;
    if (!boss) return;
    this.boss = null;
    try {
      await boss.stop({ graceful: true, wait: true, timeout: this.config.shutdown.timeoutMs });
    } catch (err) {
      this.logger.warn(`pg-boss did not stop cleanly: ${(err as Error).message}`);
    }
  }

  private started(): PgBoss {
    if (!this.boss) throw new Error('jobs: the queue is not running');
    return this.boss;
  }
}

/**
 * pg-boss 10's worker loop calls `complete()` / `fail()` for a finished job without awaiting them
 * (manager.js `watch` → `onFetch`): if the database is unreachable at that moment, the rejection
 * is unhandled, which ends a Node process. This marks those promises handled (and logs them);
 * the job then stays `active` and is retried after its expiry, like one whose worker crashed.
 * Callers that await `complete()` / `fail()` still get the rejection. Applied once, before the
 * first PgBoss is constructed (the manager looks the methods up on its prototype per call).
 */
let settlementsHandled = false;
export function markWorkerSettlementsHandled(log: (message: string) => void): void {
  if (settlementsHandled) return;
  settlementsHandled = true;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const manager = require('pg-boss/src/manager') as {
    prototype: Record<string, (...args: unknown[]) => Promise<unknown>>;
  };
  for (const name of ['complete', 'fail']) {
    const original = manager.prototype[name];
    manager.prototype[name] = function (this: unknown, ...args: unknown[]): Promise<unknown> {
      const settled = original.apply(this, args);
      settled.catch((err: unknown) =>
        log(
          `pg-boss could not ${name} a job (${(err as Error)?.message ?? String(err)}); it is retried after its expiry`,
        ),
      );
      return settled;
    };
  }
}

/** The message of a failed job's output (a serialized Error, or pg-boss's own timeout text). */
export function errorMessageOf(output: unknown): string {
  const o = output as { message?: unknown; value?: { message?: unknown } } | null | undefined;
  const message = o?.message ?? o?.value?.message;
  return typeof message === 'string' && message.length > 0 ? message : 'the job failed';
}
