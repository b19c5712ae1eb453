import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Archiver, ArchiverOptions } from 'archiver';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/app.config';
import { JobsService, type JobOf } from '../../../infra/jobs/jobs.service';
import { BlobStorage } from '../../../infra/storage/blob-storage';
import { archiveBlobs, archiveFiles, type ArchiveBlobs, type JsonSink } from './archive-export';
import type { ArchiveSubjectType } from './archive.entity';

// archiver@7 exports a factory function; the installed @types/archiver (8) describe the classes
// of archiver 8, so the factory is typed here. Loaded on first use: it is ~60 ms of every start
// and only archive jobs need it.
type ArchiverFactory = (format: 'zip', options?: ArchiverOptions) => Archiver;
let archiverFactory: ArchiverFactory | undefined;
const archiver: ArchiverFactory = (...args) => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  archiverFactory ??= require('archiver') as ArchiverFactory;
  return archiverFactory(...args);
};

export const ARCHIVE_QUEUE = 'archive-build';

export interface ArchiveJobData {
  archive_id: string;
}

/** Blob key of an archive's zip. */
export const archiveBlobKey = (archiveId: string) => `archives/${archiveId}.zip`;

/** Progress is written at most every this many percent points (one UPDATE each). */
const PROGRESS_STEP = 5;
const MAX_ERROR_LENGTH = 1000;

/**
 * The `archive-build` job: builds the zip of one archive (a JSON file per kind of data, and a
 * user's uploaded files streamed from blob storage one at a time, see archive-export.ts) into a
 * temp file with archiver, stores it in blob storage and marks the row
 * completed. A failed attempt puts the row back to `queued` while pg-boss retries it (3 retries
 * after ARCHIVE_JOB_RETRY_DELAY_SECONDS, doubled per attempt; an attempt interrupted by a crash
 * expires after ARCHIVE_JOB_TIMEOUT_SECONDS and is retried by any instance); after the last
 * attempt the dead-letter handler marks it `failed` with the error.
 */
@Injectable()
export class ArchiveBuilder implements OnModuleInit {
  private readonly logger = new Logger('Archives');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly jobs: JobsService,
    private readonly blobs: BlobStorage,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.define<ArchiveJobData>({
      name: ARCHIVE_QUEUE,
      retryLimit: 3,
      retryDelaySeconds: this.config.archives.jobRetryDelaySeconds,
      expireInSeconds: this.config.archives.jobTimeoutSeconds,
      handler: (job) => this.run(job),
      onFailed: (data, error) => this.markFailed(data.archive_id, error),
    });
  }

  /** One attempt of a build. */
  async run(job: JobOf<ArchiveJobData>): Promise<void> {
    const archiveId = job.data.archive_id;
    // An UPDATE answers [rows, count] through TypeORM.
    const [[claimed]] = await this.db.query<
      [Array<{ subject_type: ArchiveSubjectType; subject_id: string }>, number]
    >(
      `UPDATE archives SET status = 'running', progress = 0, started_at = now(), error = NULL
        WHERE id = $1 AND status IN ('queued', 'running') AND expires_at > now()
        RETURNING subject_type, subject_id::text AS subject_id`,
      [archiveId],
    );
    // Completed or failed already (a duplicate delivery), expired, or gone: nothing to do.
    if (!claimed) return;
    try {
      const size = await this.build(archiveId, claimed.subject_type, claimed.subject_id);
      await this.db.query(
        `UPDATE archives SET status = 'completed', progress = 100, blob_key = $2, size_bytes = $3,
                completed_at = now()
          WHERE id = $1 AND status = 'running'`,
        [archiveId, archiveBlobKey(archiveId), size],
      );
    } catch (err) {
      const last = job.retryCount >= job.retryLimit;
      this.logger.warn(
        `archive ${archiveId}: attempt ${job.retryCount + 1} failed${last ? ' (last)' : ''}: ${(err as Error).message}`,
      );
      // Back in the queue while pg-boss retries it; the dead-letter handler marks the last failure.
      await this.db
        .query(
          `UPDATE archives SET status = 'queued', progress = 0 WHERE id = $1 AND status = 'running'`,
          [archiveId],
        )
        .catch(() => undefined);
      throw err;
    }
  }

  async markFailed(archiveId: string, error: string): Promise<void> {
    await this.db.query(
      `UPDATE archives SET status = 'failed', error = $2, completed_at = now()
        WHERE id = $1 AND status IN ('queued', 'running')`,
      [archiveId, error.slice(0, MAX_ERROR_LENGTH)],
    );
  }

  /** Writes the zip to a temp file, then into blob storage; returns its size in bytes. */
  private async build(
    archiveId: string,
    subjectType: ArchiveSubjectType,
    subjectId: string,
  ): Promise<number> {
    const files = await archiveFiles(this.db, subjectType, subjectId);
    if (!files) throw new Error(`the ${subjectType} ${subjectId} no longer exists`);
    const blobs = archiveBlobs(this.db, subjectType, subjectId);
    const dir = await mkdtemp(join(tmpdir(), 'parley-archive-'));
    try {
      const path = join(dir, `${archiveId}.zip`);
      // The zip holds a user's data: only this process may read it, even in the temp folder.
      const out = createWriteStream(path, { mode: 0o600 });
      const zip = archiver('zip', { zlib: { level: 6 } });
      const failed = new Promise<never>((_, reject) => {
        zip.on('error', reject);
        zip.on('warning', reject);
        out.on('error', reject);
      });
      failed.catch(() => undefined);
      zip.pipe(out);

      const manifest = {
        archive_id: archiveId,
        subject_type: subjectType,
        subject_id: subjectId,
        generated_at: new Date().toISOString(),
        files: files.map((f) => f.name),
      };
      zip.append(JSON.stringify(manifest, null, 2), { name: 'manifest.json' });

      const total = files.reduce((sum, f) => sum + f.weight, 0) + (blobs?.weight ?? 0);
      let done = 0;
      let reported = 0;
      const report = async (points: number) => {
        const percent = Math.min(99, Math.floor((points / total) * 100));
        if (percent - reported < PROGRESS_STEP) return;
        reported = percent;
        await this.db.query(
          `UPDATE archives SET progress = $2 WHERE id = $1 AND status = 'running'`,
          [archiveId, percent],
        );
      };
      for (const file of files) {
        const entry = new PassThrough();
        zip.append(entry, { name: file.name });
        const sink: JsonSink = {
          write: async (chunk) => {
            if (!entry.write(chunk)) await Promise.race([once(entry, 'drain'), failed]);
          },
        };
        await Promise.race([
          file.write(sink, (fraction) => report(done + fraction * file.weight)),
          failed,
        ]);
        entry.end();
        done += file.weight;
        await report(done);
      }
      if (blobs) {
        await this.appendBlobs(zip, blobs, failed, (fraction) =>
          report(done + fraction * blobs.weight),
        );
      }
      await Promise.race([zip.finalize(), failed]);
      if (!out.closed) await Promise.race([once(out, 'close'), failed]);
      const size = zip.pointer();
      await this.blobs.putFile(archiveBlobKey(archiveId), path);
      return size;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * Streams each stored file into the zip, one at a time: the next blob is opened only once
   * archiver has read the previous one to its end, so one file (one disk read or S3 GET) is open
   * at a time and none is ever held whole. A file deleted since it was listed is left out; a read
   * that fails fails the build (pipe() would not pass the error on to archiver).
   */
  private async appendBlobs(
    zip: Archiver,
    blobs: ArchiveBlobs,
    failed: Promise<never>,
    progress: (fraction: number) => Promise<void>,
  ): Promise<void> {
    const count = await blobs.count();
    let seen = 0;
    for await (const page of blobs.pages()) {
      for (const file of page) {
        seen += 1;
        const blob = await this.blobs.open(file.key);
        if (!blob) continue;
        zip.append(blob.stream, { name: file.name });
        try {
          await Promise.race([finished(blob.stream), failed]);
        } catch (err) {
          blob.stream.destroy();
          throw err;
        }
      }
      if (count > 0) await progress(Math.min(1, seen / count));
    }
  }
}
