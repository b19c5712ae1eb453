import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { describeDatabaseError } from '../errors/database-unavailable';
import { withTimeout } from './with-timeout';

const PROBE_INTERVAL_MS = 1_000;
const PROBE_TIMEOUT_MS = 2_000;

/**
 * Knows whether PostgreSQL is unreachable, for the log: the exception filter reports each
 * request that failed for that reason (and answers it 503), and this logs one warning when an
 * outage starts, then probes (`SELECT 1` through the pool, every second) and logs one info line
 * when the database answers again. It never gates requests: they keep trying the pool, so
 * service resumes with the database, whatever the probe's timing.
 */
@Injectable()
export class DatabaseOutageTracker implements OnApplicationShutdown {
  private readonly logger = new Logger('Database');
  private since: number | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Whether an outage is under way (from the first failure until a probe succeeds). */
  get down(): boolean {
    return this.since !== null;
  }

  /** A database call failed because PostgreSQL cannot be reached (see isDatabaseUnavailable). */
  failed(error: unknown): void {
    if (this.since !== null || this.stopped) return;
    this.since = Date.now();
    this.logger.warn(
      `PostgreSQL is unavailable (${describeDatabaseError(error)}): requests that need it ` +
        `answer 503 SERVICE_UNAVAILABLE until it is back`,
    );
    this.scheduleProbe();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
  }

  private scheduleProbe(): void {
    if (this.stopped || this.probeTimer) return;
    this.probeTimer = setTimeout(() => void this.probe(), PROBE_INTERVAL_MS);
    this.probeTimer.unref();
  }

  private async probe(): Promise<void> {
    this.probeTimer = null;
    if (this.stopped || this.since === null) return;
    try {
      await withTimeout(this.db.query('SELECT 1'), PROBE_TIMEOUT_MS);
    } catch {
      this.scheduleProbe();
      return;
    }
    if (this.stopped) return;
    const seconds = ((Date.now() - this.since) / 1000).toFixed(1);
    this.since = null;
    this.logger.log(`PostgreSQL is reachable again (unavailable for ${seconds} s)`);
  }
}
