import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { DataSource } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { SweeperService } from '../../src/common/maintenance/sweeper.service';
import { Metrics } from '../../src/infra/metrics/metrics';
import type { PrometheusMetrics } from '../../src/infra/metrics/prometheus-metrics';
import {
  ATTACHMENT_SWEEP_QUEUE,
  AttachmentSweeper,
} from '../../src/modules/guilds/attachments/attachment-sweeper';
import { createTestApp, http } from '../helpers/app';
import {
  allowFiles,
  attachmentRow,
  blobExists,
  postWithFiles,
  storeFile,
  type FileTarget,
  type TestFile,
} from '../helpers/attachments';
import { registerUser, type TestUser } from '../helpers/factories';
import { fixtureQuery } from '../helpers/fixtures';
import { addMember, createGuild, type TestGuild } from '../helpers/guild-factories';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The attachment lifecycle (issue 30, "Lifecycle"): a message's files go with it, whichever way
 * it goes — the foreign key makes them due, the sweep deletes the blob and then the row —, an
 * upload nobody attached goes once it expires, and the metrics count it.
 */
describe('attachments: the sweep', () => {
  let app: ParleyApp;
  let db: DataSource;
  let sweeper: AttachmentSweeper;
  let owner: TestUser;
  let member: TestUser;
  let g: TestGuild;
  let asOwner: FileTarget;

  beforeAll(async () => {
    app = await createTestApp({ env: { METRICS_PORT: '0' } });
    db = app.get(DataSource);
    sweeper = app.get(AttachmentSweeper);
    [owner, member] = await Promise.all([registerUser(app), registerUser(app)]);
    g = await createGuild(app, owner.token);
    await allowFiles(app, owner.token, g.guildId);
    await addMember(app, g.guildId, member.userId);
    asOwner = { ...g, uploaderId: owner.userId };
  });

  afterAll(async () => {
    await app?.close();
  });

  const state = async (file: TestFile) => ({
    blob: await blobExists(app, file.key),
    row: await attachmentRow(app, file.id),
  });

  /**
   * Runs the sweep until the files are gone. Usually once; again when the job the deletion
   * enqueued is sweeping them at the same moment (its rows are locked: this sweep skips them).
   */
  async function sweepAway(files: TestFile[]): Promise<void> {
    for (let i = 0; i < 50; i++) {
      await sweeper.sweep();
      const left = await Promise.all(files.map(state));
      if (left.every((s) => !s.blob && s.row === null)) return;
      await sleep(100);
    }
    throw new Error('the sweep left files behind');
  }

  async function expectDue(files: TestFile[]): Promise<void> {
    for (const file of files) {
      const row = await attachmentRow(app, file.id);
      // Swept already (by the job) or waiting for it: never attached any more.
      if (row) expect(row).toEqual({ message_id: null, expires_at: null });
    }
  }

  it('a deleted message: its files are due at once, and the sweep deletes each blob, then its row', async () => {
    const { messageId, files } = await postWithFiles(app, owner.token, asOwner, 2);
    for (const file of files) {
      expect(await state(file)).toEqual({
        blob: true,
        row: { message_id: messageId, expires_at: null },
      });
    }
    const res = await http(app)
      .delete(`/v1/channels/${g.channelId}/messages/${messageId}`)
      .set('Authorization', owner.token);
    expect(res.status).toBe(204);
    expect(res.body).toEqual({});
    await expectDue(files);
    await sweepAway(files);
    for (const file of files) expect(await state(file)).toEqual({ blob: false, row: null });
  });

  it('the sweep job the deletion enqueued in its transaction runs on its own', async () => {
    const { messageId, files } = await postWithFiles(app, owner.token, asOwner);
    const [{ now: before }] = await db.query<Array<{ now: Date }>>('SELECT now()');
    const res = await http(app)
      .delete(`/v1/channels/${g.channelId}/messages/${messageId}`)
      .set('Authorization', owner.token);
    expect(res.status).toBe(204);
    // Queued with the deletion (no explicit sweep here; the periodic one is off in tests).
    const queued = await db.query<Array<{ state: string }>>(
      'SELECT state::text AS state FROM pgboss.job WHERE name = $1 AND created_on >= $2',
      [ATTACHMENT_SWEEP_QUEUE, before],
    );
    expect(queued.length).toBeGreaterThanOrEqual(1);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const now = await state(files[0]);
      if (!now.blob && now.row === null) break;
      if (Date.now() > deadline) throw new Error(`the job did not sweep: ${JSON.stringify(now)}`);
      await sleep(100);
    }
    const jobs = await db.query<Array<{ state: string }>>(
      'SELECT state::text AS state FROM pgboss.job WHERE name = $1 AND created_on >= $2',
      [ATTACHMENT_SWEEP_QUEUE, before],
    );
    expect(jobs.map((j) => j.state)).toContain('completed');
  });

  it('an edit that drops an attachment: that file goes, the kept one stays', async () => {
    const { messageId, files } = await postWithFiles(app, owner.token, asOwner, 2);
    const [dropped, kept] = files;
    const res = await http(app)
      .patch(`/v1/channels/${g.channelId}/messages/${messageId}`)
      .set('Authorization', owner.token)
      .send({ attachments: [{ id: kept.id }] });
    expect(res.status).toBe(200);
    expect(res.body.attachments).toEqual([expect.objectContaining({ id: kept.id })]);
    await expectDue([dropped]);
    await sweepAway([dropped]);
    expect(await state(dropped)).toEqual({ blob: false, row: null });
    expect(await state(kept)).toEqual({
      blob: true,
      row: { message_id: messageId, expires_at: null },
    });
  });

  it('bulk delete: the files of every deleted message go', async () => {
    const a = await postWithFiles(app, owner.token, asOwner);
    const b = await postWithFiles(app, owner.token, asOwner, 2);
    const res = await http(app)
      .post(`/v1/channels/${g.channelId}/messages/bulk-delete`)
      .set('Authorization', owner.token)
      .send({ messages: [a.messageId, b.messageId] });
    expect(res.status).toBe(204);
    expect(res.body).toEqual({});
    const files = [...a.files, ...b.files];
    await expectDue(files);
    await sweepAway(files);
    for (const file of files) expect(await state(file)).toEqual({ blob: false, row: null });
  });

  it('channel deletion: the files of its messages go, those of other channels stay', async () => {
    const created = await http(app)
      .post(`/v1/guilds/${g.guildId}/channels`)
      .set('Authorization', owner.token)
      .send({ name: 'doomed' });
    expect(created.status).toBe(201);
    const doomed = { guildId: g.guildId, channelId: created.body.id as string };
    const inDoomed = await postWithFiles(app, owner.token, { ...doomed, uploaderId: owner.userId });
    const elsewhere = await postWithFiles(app, owner.token, asOwner);
    const res = await http(app)
      .delete(`/v1/channels/${doomed.channelId}`)
      .set('Authorization', owner.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: doomed.channelId, name: 'doomed' });
    await expectDue(inDoomed.files);
    await sweepAway(inDoomed.files);
    expect(await state(inDoomed.files[0])).toEqual({ blob: false, row: null });
    expect(await state(elsewhere.files[0])).toEqual({
      blob: true,
      row: { message_id: elsewhere.messageId, expires_at: null },
    });
  });

  it('guild deletion: the cascade to its messages leaves their files due, and the sweep takes them', async () => {
    // No route deletes a guild yet: the row goes as a future deletion path would take it, and
    // the foreign keys (guild → channels → messages → attachments SET NULL) do the rest.
    const doomed = await createGuild(app, owner.token);
    const { files } = await postWithFiles(app, owner.token, {
      ...doomed,
      uploaderId: owner.userId,
    });
    await fixtureQuery(db, 'DELETE FROM guilds WHERE id = $1', [doomed.guildId]);
    expect(await attachmentRow(app, files[0].id)).toEqual({ message_id: null, expires_at: null });
    await sweepAway(files);
    expect(await state(files[0])).toEqual({ blob: false, row: null });
  });

  it('a ban with delete_message_seconds: the banned member’s files go with their messages', async () => {
    const target = await registerUser(app);
    await addMember(app, g.guildId, target.userId);
    const posted = await postWithFiles(app, target.token, { ...g, uploaderId: target.userId });
    const res = await http(app)
      .put(`/v1/guilds/${g.guildId}/bans/${target.userId}`)
      .set('Authorization', owner.token)
      .send({ delete_message_seconds: 3600 });
    expect(res.status).toBe(204);
    expect(res.body).toEqual({});
    await expectDue(posted.files);
    await sweepAway(posted.files);
    expect(await state(posted.files[0])).toEqual({ blob: false, row: null });
  });

  it('uploads: an expired one is swept (also by the periodic sweeper), a pending or attached one stays', async () => {
    const pending = await storeFile(app, { ...g, uploaderId: member.userId });
    const expired = await storeFile(app, { ...g, uploaderId: member.userId });
    const expiredToo = await storeFile(app, { ...g, uploaderId: member.userId });
    const attached = await postWithFiles(app, owner.token, asOwner);
    const expire = (file: TestFile) =>
      db.query(`UPDATE attachments SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        file.id,
      ]);
    await expire(expired);
    await sweepAway([expired]);
    expect(await state(expired)).toEqual({ blob: false, row: null });
    // The periodic pass every instance runs (SweeperService, every 10 minutes) has the task too.
    await expire(expiredToo);
    const counts = await app.get(SweeperService).runOnce();
    expect(counts).toHaveProperty('attachment_files');
    for (let i = 0; i < 50 && (await attachmentRow(app, expiredToo.id)); i++) await sleep(100);
    expect(await state(expiredToo)).toEqual({ blob: false, row: null });
    expect(await state(pending)).toEqual({
      blob: true,
      row: { message_id: null, expires_at: expect.any(Date) },
    });
    expect(await state(attached.files[0])).toEqual({
      blob: true,
      row: { message_id: attached.messageId, expires_at: null },
    });
  });

  it('metrics: uploads, deletions (count and bytes), and the stored files read from the database', async () => {
    const metrics = app.get<Metrics, PrometheusMetrics>(Metrics);
    expect(metrics.enabled).toBe(true);
    const scrape = async () => {
      const families = parsePrometheusTextFormat(await metrics.scrape());
      return (name: string) => {
        const family = families.find((f) => f.name === name);
        if (!family) throw new Error(`no ${name} family`);
        return Number(family.metrics[0]?.value ?? 0);
      };
    };
    const before = await scrape();
    const file = await storeFile(app, { ...g, uploaderId: member.userId });
    await db.query(
      `UPDATE attachments SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [file.id],
    );
    // Another instance's job may sweep it first (sweeps take every due row): this app's own
    // sweep is what its counters count.
    const own = await sweeper.sweep();
    await sweepAway([file]);
    const stored = async () =>
      (
        await db.query<Array<{ files: number; bytes: number }>>(
          'SELECT count(*)::float8 AS files, coalesce(sum(size), 0)::float8 AS bytes FROM attachments WHERE stored',
        )
      )[0];
    const low = await stored();
    const after = await scrape();
    const high = await stored();

    expect(after('parley_attachment_uploads_total')).toBeGreaterThanOrEqual(
      before('parley_attachment_uploads_total') + 1,
    );
    expect(after('parley_attachments_deleted_total')).toBeGreaterThanOrEqual(
      before('parley_attachments_deleted_total') + own.count,
    );
    expect(after('parley_attachment_deleted_bytes_total')).toBeGreaterThanOrEqual(
      before('parley_attachment_deleted_bytes_total') + own.bytes,
    );
    if (own.count > 0) expect(own.bytes).toBeGreaterThanOrEqual(file.bytes.length);
    // Read from the table at scrape time: every instance's files, not this one's tally.
    for (const [family, key] of [
      ['parley_attachments_stored', 'files'],
      ['parley_attachment_bytes_stored', 'bytes'],
    ] as const) {
      expect(after(family)).toBeGreaterThanOrEqual(Math.min(low[key], high[key]));
      expect(after(family)).toBeLessThanOrEqual(Math.max(low[key], high[key]));
    }
  });
});
