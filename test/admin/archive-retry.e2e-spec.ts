import type { ParleyApp } from '../../src/app.setup';
import PgBoss from 'pg-boss';
import { DataSource } from 'typeorm';
import { JobsService } from '../../src/infra/jobs/jobs.service';
import { BlobStorage } from '../../src/infra/storage/blob-storage';
import {
  ARCHIVE_QUEUE,
  ArchiveBuilder,
  type ArchiveJobData,
} from '../../src/modules/admin/archives/archive-builder';
import { createAdminKey, type TestAdminKey } from '../helpers/admin';
import { createTestApp, fetchLink, http } from '../helpers/app';
import { registerUser } from '../helpers/factories';
import { createPostgresTestDatabase, type TestDatabase } from '../setup/database';

/** A short job timeout, so that the crashed attempt expires within the test. */
const TIMEOUT_SECONDS = 2;

interface JobRow {
  state: string;
  retry_count: number;
  expire_seconds: number;
  started_on: Date | null;
  output: { value?: { message?: string } } | null;
}

/** The pg-boss job of an archive (jobs stay in `pgboss.job` until archived, hours later). */
async function jobOf(db: DataSource, archiveId: string): Promise<JobRow> {
  const rows = await db.query<JobRow[]>(
    `SELECT state::text AS state, retry_count, extract(epoch FROM expire_in)::int AS expire_seconds,
            started_on, output
       FROM pgboss.job WHERE name = $1 AND data->>'archive_id' = $2`,
    [ARCHIVE_QUEUE, archiveId],
  );
  expect(rows).toHaveLength(1);
  return rows[0];
}

/**
 * Issue 9: an archive job whose worker died mid-build is retried by another instance once the
 * job's timeout (ARCHIVE_JOB_TIMEOUT_SECONDS) has passed, and the archive completes.
 *
 * The suite runs on a database of its own: every e2e suite's app has a worker on the archive
 * queue, each with its own DATA_DIR, so on the shared database another suite's instance could
 * take this job (and keep the zip where this suite cannot download it).
 */
describe('Archive jobs interrupted by a crash', () => {
  let database: TestDatabase;
  const running = new Set<ParleyApp>();
  let crashed: PgBoss | undefined;

  const startInstance = async () => {
    const app = await createTestApp({
      env: {
        DATABASE_URL: database.url,
        ARCHIVE_JOB_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
        ARCHIVE_JOB_RETRY_DELAY_SECONDS: '1',
        SHUTDOWN_TIMEOUT_MS: '1000',
      },
    });
    running.add(app);
    return app;
  };
  const stopInstance = async (app: ParleyApp) => {
    running.delete(app);
    await app.close();
  };

  beforeAll(async () => {
    database = await createPostgresTestDatabase(process.env.PARLEY_TEST_DATABASE_URL!);
  });
  afterAll(async () => {
    await crashed?.stop({ graceful: false }).catch(() => undefined);
    for (const app of running) await app.close().catch(() => undefined);
    await database?.drop();
  });

  it('retries a job left active by a dead worker after its timeout, on another instance; the archive completes', async () => {
    // Instance A: the API that takes the request. Its own archive worker is stopped, so that the
    // job goes to the worker that is about to crash (and A's worker cannot time it out itself).
    const a = await startInstance();
    const root: TestAdminKey = await createAdminKey(a, ['*']);
    const subject = await registerUser(a);
    // (JobsService keeps its pg-boss instance private: reached here for this one test.)
    const bossOfA = Reflect.get(a.get(JobsService), 'boss') as PgBoss;
    await bossOfA.offWork(ARCHIVE_QUEUE);

    const triggered = await http(a)
      .post('/v1/admin/archives/user')
      .set('Authorization', root.header)
      .send({ user_id: subject.userId });
    expect(triggered.status).toBe(200);
    const archiveId = triggered.body.archive_id as string;
    const details = (app: ParleyApp) =>
      http(app)
        .get(`/v1/admin/archives/user/${subject.userId}/${archiveId}`)
        .set('Authorization', root.header);
    // The job carries the configured timeout.
    expect(await jobOf(a.get(DataSource), archiveId)).toMatchObject({
      state: 'created',
      retry_count: 0,
      expire_seconds: TIMEOUT_SECONDS,
    });

    // The crashing worker: a pg-boss client fetches the job (state `active`) the way a worker
    // does and runs the real handler, which hangs while storing the zip and never returns. No
    // worker loop wraps it, so nothing on its side will ever complete, fail or time out the job.
    crashed = new PgBoss({
      connectionString: database.url,
      application_name: 'parley-crashed-worker',
      max: 1,
      supervise: false,
      schedule: false,
    });
    crashed.on('error', () => undefined);
    await crashed.start();
    const [job] = await crashed.fetch<ArchiveJobData>(ARCHIVE_QUEUE, { includeMetadata: true });
    expect(job).toMatchObject({
      data: { archive_id: archiveId },
      state: 'active',
      retryCount: 0,
    });
    // pg returns the NUMERIC as text.
    expect(Number(job.expireInSeconds)).toBe(TIMEOUT_SECONDS);
    let release: (err: Error) => void = () => undefined;
    let storing: () => void = () => undefined;
    const reachedStore = new Promise<void>((resolve) => (storing = resolve));
    a.get(BlobStorage).putFile = () => {
      storing();
      return new Promise<void>((_, reject) => (release = reject));
    };
    const attempt = a.get(ArchiveBuilder).run(job);
    attempt.catch(() => undefined);
    await reachedStore;
    const midway = await details(a);
    expect(midway.body).toMatchObject({ status: 'running', completed_at: null });
    const firstStart = Date.parse(midway.body.started_at as string);

    // The process dies: its connections drop, nothing is sent back to pg-boss. Instance A goes
    // away too: only a new instance is left to notice.
    await crashed.stop({ graceful: false });
    crashed = undefined;
    await stopInstance(a);

    // Instance B: its pg-boss maintenance fails the expired job back to the queue (`retry`, after
    // the retry delay), and its worker runs the second attempt.
    const b = await startInstance();
    const db = b.get(DataSource);
    const states: string[] = [];
    let expiredWith: string | undefined;
    const deadline = Date.now() + 25_000;
    let done: Record<string, unknown> | undefined;
    let finished: JobRow | undefined;
    while (!done || finished?.state !== 'completed') {
      finished = await jobOf(db, archiveId);
      if (states[states.length - 1] !== finished.state) states.push(finished.state);
      if (finished.state === 'retry') expiredWith = finished.output?.value?.message;
      const res = await details(b);
      expect(res.status).toBe(200);
      if (res.body.status === 'completed') done = res.body as Record<string, unknown>;
      if (res.body.status === 'failed' || Date.now() > deadline) {
        throw new Error(`not retried: ${JSON.stringify({ states, archive: res.body })}`);
      }
      if (!done || finished.state !== 'completed') await new Promise((r) => setTimeout(r, 100));
    }

    // Failed by its expiry (pg-boss's timeout message), put back as `retry`, run once more and
    // completed; the second attempt started after the first one's timeout.
    expect(states).toContain('retry');
    expect(states.indexOf('retry')).toBeLessThan(states.indexOf('completed'));
    expect(expiredWith).toBe('job failed by timeout in active state');
    expect(finished).toMatchObject({ state: 'completed', retry_count: 1 });
    expect(finished.started_on!.getTime()).toBeGreaterThanOrEqual(
      firstStart + TIMEOUT_SECONDS * 1000,
    );
    expect(Date.parse(done.started_at as string)).toBeGreaterThan(firstStart);
    expect(done).toMatchObject({
      status: 'completed',
      progress: 100,
      file_location: `archives/${archiveId}.zip`,
      error: null,
    });

    // It downloads fine from the instance that built it.
    const link = await http(b)
      .get(`/v1/admin/archives/user/${subject.userId}/${archiveId}/download`)
      .set('Authorization', root.header);
    expect(link.status).toBe(200);
    const file = await fetchLink(b, link.body.download_url as string);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/zip');
    const zip = file.body as Buffer;
    expect(zip.length).toBe(done.file_size);
    expect(zip.subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));
    expect(zip.includes(Buffer.from('manifest.json'))).toBe(true);

    // The dead worker's handler never resumes; unblock it only to let it clean its temp file.
    release(new Error('the process was killed'));
    await expect(attempt).rejects.toThrow('the process was killed');
  });
});
