import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../config/app.config';

const INTERVAL_MS = 10 * 60_000;

export interface SweepTask {
  /** Shown in logs. */
  name: string;
  /** Deletes (or neutralises) expired rows; returns how many it touched. Must be idempotent. */
  run(): Promise<number>;
}

/**
 * Periodic clean-up of expired single-use rows (e-mail tokens, tickets, handoffs, OAuth2 codes and
 * tokens, webhook delivery ids). Modules register their task in onModuleInit. Every instance runs
 * the tasks every 10 minutes (with jitter); the statements are idempotent, so running them on N
 * instances is harmless. Tests call `runOnce()` instead of waiting for the timer.
 */
@Injectable()
export class SweeperService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SweeperService.name);
  private readonly tasks: SweepTask[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<Record<string, number>> | undefined;

  constructor(private readonly config: AppConfig) {}

  register(task: SweepTask): void {
    this.tasks.push(task);
  }

  onApplicationBootstrap(): void {
    if (this.config.env === 'test') return;
    const jitter = Math.floor(Math.random() * 60_000);
    this.timer = setInterval(() => void this.runOnce(), INTERVAL_MS + jitter);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Runs every task once (never two sweeps at a time); a failing task does not stop the others. */
  runOnce(): Promise<Record<string, number>> {
    this.running ??= this.sweep().finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweep(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const task of this.tasks) {
      try {
        counts[task.name] = await task.run();
      } catch (err) {
        this.logger.warn(`sweep task ${task.name} failed: ${(err as Error).message}`);
      }
    }
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    if (total > 0) this.logger.log({ counts }, `swept ${total} expired row(s)`);
    return counts;
  }
}

/** A sweep task that runs one DELETE and reports the affected row count. */
export function sqlSweep(
  name: string,
  db: { query<T>(sql: string): Promise<T> },
  sql: string,
): SweepTask {
  return {
    name,
    run: async () => (await db.query<[unknown[], number]>(sql))[1] ?? 0,
  };
}
