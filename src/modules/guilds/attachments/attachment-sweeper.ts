import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
} from 'typeorm';
import { SweeperService } from '../../../common/maintenance/sweeper.service';
import { JobsService } from '../../../infra/jobs/jobs.service';
import { Metrics } from '../../../infra/metrics/metrics';
import { BlobStorage } from '../../../infra/storage/blob-storage';

export const ATTACHMENT_SWEEP_QUEUE = 'attachment-sweep';

/** Rows claimed, blobs deleted and rows deleted per transaction. */
const BATCH = 100;
/**
 * How long one job (or one periodic pass) sweeps before it hands the rest to a follow-up job:
 * well inside the job's expiry, so a large backlog (a purged guild) never runs into it.
 */
const RUN_BUDGET_MS = 30_000;

/**
 * Due for deletion (the lifecycle of migration 1796000014000): no message, and either its
 * message went (`expires_at` NULL) or it is an upload nobody attached in time. The partial index
 * attachments_unattached_idx holds exactly the rows without a message.
 */
const DUE = 'message_id IS NULL AND (expires_at IS NULL OR expires_at < now())';

export interface SweepOutcome {
  /** Attachments whose blob and row were deleted. */
  count: number;
  /** Bytes blob storage freed. */
  bytes: number;
  /** Due rows were left (the budget ran out, or some blobs could not be deleted). */
  more: boolean;
}

/**
 * Deletes the files of attachments that are due (DESIGN.md "Files": a message's blobs go with
 * it). A message's deletion never touches blob storage: the foreign key sets `message_id` NULL
 * on its attachments (however the message goes: single, bulk, ban, channel or guild deletion),
 * and every path that deletes messages enqueues a sweep in its transaction (`enqueue`), which a
 * worker runs once it commits. The sweep also runs on every instance with the periodic sweeper
 * (SweeperService, every 10 minutes) for uploads that expired and for anything a failed job
 * left behind.
 *
 * Several instances may sweep at once: each batch claims its rows with FOR UPDATE SKIP LOCKED,
 * deletes their blobs, then their rows, and commits. A crash after a blob went and before the
 * commit leaves the row for the next sweep (deleting a missing blob is a no-op), never a blob
 * without its row.
 */
@Injectable()
export class AttachmentSweeper implements OnModuleInit {
  private readonly logger = new Logger('Attachments');
  /** Transactions that enqueued a sweep: this instance's worker is woken when they commit. */
  private readonly enqueued = new WeakSet<QueryRunner>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly jobs: JobsService,
    private readonly blobs: BlobStorage,
    private readonly sweeper: SweeperService,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.jobs.define<Record<string, never>>({
      name: ATTACHMENT_SWEEP_QUEUE,
      retryLimit: 5,
      retryDelaySeconds: 30,
      expireInSeconds: 300,
      handler: () => this.runJob(),
    });
    this.sweeper.register({
      name: 'attachment_files',
      run: async () => (await this.sweep(RUN_BUDGET_MS)).count,
    });
    const subscriber: EntitySubscriberInterface = {
      afterTransactionCommit: (event: TransactionCommitEvent) => this.committed(event.queryRunner),
    };
    this.db.subscribers.push(subscriber);
    // A gauge cheaper to read than to keep right across instances: every instance stores and
    // sweeps, only the table knows the total.
    this.metrics.onScrape(async () => {
      const [row] = await this.db.query<Array<{ files: string; bytes: string }>>(
        'SELECT count(*)::text AS files, coalesce(sum(size), 0)::text AS bytes FROM attachments WHERE stored',
      );
      this.metrics.storedAttachments(Number(row.files), Number(row.bytes));
    });
  }

  /**
   * Called in the transaction of every path that deletes messages (and of the admin purges):
   * when files are due — those messages had some —, a sweep job is enqueued with the change,
   * and this instance's worker fetches it as soon as the transaction commits.
   */
  async enqueue(m: EntityManager): Promise<void> {
    const due = await m.query<unknown[]>(
      'SELECT 1 FROM attachments WHERE message_id IS NULL AND expires_at IS NULL LIMIT 1',
    );
    if (due.length === 0) return;
    await this.jobs.send(m, ATTACHMENT_SWEEP_QUEUE, {});
    if (m.queryRunner) this.enqueued.add(m.queryRunner);
  }

  /**
   * Sweeps due attachments in batches until none is left or `budgetMs` is spent. Tests call it
   * to sweep deterministically.
   */
  async sweep(budgetMs = RUN_BUDGET_MS): Promise<SweepOutcome> {
    const deadline = Date.now() + budgetMs;
    const total: SweepOutcome = { count: 0, bytes: 0, more: false };
    for (;;) {
      const batch = await this.sweepBatch();
      if (batch.count > 0) this.metrics.attachmentsDeleted(batch.count, batch.bytes);
      total.count += batch.count;
      total.bytes += batch.bytes;
      // A short batch: nothing else was due (or the rest is another sweeper's, locked).
      if (batch.claimed < BATCH) {
        total.more = batch.count < batch.claimed;
        break;
      }
      // A full batch that deleted nothing: blob storage is failing; leave it to a retry.
      if (batch.count === 0 || Date.now() >= deadline) {
        total.more = true;
        break;
      }
    }
    if (total.count > 0) {
      this.logger.log({ files: total.count, bytes: total.bytes }, 'attachment files deleted');
    }
    return total;
  }

  /** One job: a sweep within the budget, and a follow-up job for what is left. */
  private async runJob(): Promise<void> {
    const outcome = await this.sweep(RUN_BUDGET_MS);
    if (!outcome.more) return;
    await this.db.transaction((m) => this.jobs.send(m, ATTACHMENT_SWEEP_QUEUE, {}));
  }

  /** Claims up to BATCH due rows, deletes their blobs, then the rows whose blob is gone. */
  private async sweepBatch(): Promise<{ claimed: number; count: number; bytes: number }> {
    return this.db.transaction(async (m) => {
      const rows = await m.query<Array<{ id: string; blob_key: string }>>(
        `SELECT id::text AS id, blob_key FROM attachments WHERE ${DUE}
          LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
      );
      const gone: string[] = [];
      let bytes = 0;
      for (const row of rows) {
        try {
          bytes += await this.blobs.delete(row.blob_key);
          gone.push(row.id);
        } catch (err) {
          // The row stays (unlocked at commit) for the next sweep.
          this.logger.warn(
            `attachment ${row.id}: could not delete its file: ${(err as Error).message}`,
          );
        }
      }
      if (gone.length > 0) {
        await m.query('DELETE FROM attachments WHERE id = ANY($1::bigint[])', [gone]);
      }
      return { claimed: rows.length, count: gone.length, bytes };
    });
  }

  private committed(runner: QueryRunner): void {
    // A savepoint released: the outermost transaction is still open.
    if (runner.isTransactionActive || !this.enqueued.has(runner)) return;
    this.enqueued.delete(runner);
    this.jobs.nudge(ATTACHMENT_SWEEP_QUEUE);
  }
}
