import { DataSource } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { AttachmentSweeper } from '../../src/modules/guilds/attachments/attachment-sweeper';
import { createTestApp, http } from '../helpers/app';
import { createAdminKey, type TestAdminKey } from '../helpers/admin';
import {
  allowFiles,
  attachmentRow,
  blobExists,
  postWithFiles,
  storeFile,
  type TestFile,
} from '../helpers/attachments';
import { registerUser, type TestUser } from '../helpers/factories';
import { GatewayClient } from '../helpers/gateway-client';
import { addMember, createGuild, type TestGuild } from '../helpers/guild-factories';
import { serverPort } from '../helpers/ports';

const UNKNOWN_ID = '1234567890123456789';

/**
 * The admin purges of a user's or a guild's files: the messages lose them (announced), the rows
 * are sent to deletion and the sweep deletes the blobs.
 */
describe('admin: attachment purges', () => {
  let app: ParleyApp;
  let db: DataSource;
  let key: TestAdminKey;
  let owner: TestUser;
  let member: TestUser;
  let g: TestGuild;
  let watcher: GatewayClient;

  beforeAll(async () => {
    const port = await serverPort();
    app = await createTestApp();
    await app.listen(port, '127.0.0.1');
    db = app.get(DataSource);
    key = await createAdminKey(app, ['attachment:purge']);
    [owner, member] = await Promise.all([registerUser(app), registerUser(app)]);
    g = await createGuild(app, owner.token);
    await allowFiles(app, owner.token, g.guildId);
    await addMember(app, g.guildId, member.userId);
    watcher = await GatewayClient.ready(`ws://127.0.0.1:${port}/gateway`, owner.token);
  });

  afterAll(async () => {
    watcher?.ws.terminate();
    await app?.close();
  });

  const purge = (subject: 'user' | 'guild', id: string, header?: string) => {
    const req = http(app).post(`/v1/admin/attachments/purge/${subject}`);
    if (header) req.set('Authorization', header);
    return req.send(subject === 'user' ? { user_id: id } : { guild_id: id });
  };

  const getMessage = (channelId: string, messageId: string) =>
    http(app)
      .get(`/v1/channels/${channelId}/messages/${messageId}`)
      .set('Authorization', owner.token);

  const state = async (file: TestFile) => ({
    blob: await blobExists(app, file.key),
    row: await attachmentRow(app, file.id),
  });

  /** Sweeps until the files are gone (the purge's own job may be sweeping them at the same time). */
  async function sweepAway(files: TestFile[]): Promise<void> {
    for (let i = 0; i < 50; i++) {
      await app.get(AttachmentSweeper).sweep();
      const left = await Promise.all(files.map(state));
      if (left.every((s) => !s.blob && s.row === null)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the sweep left files behind');
  }

  it('401 without an admin key (none, or a session token), on both routes', async () => {
    for (const [subject, id] of [
      ['user', member.userId],
      ['guild', g.guildId],
    ] as const) {
      for (const header of [undefined, owner.token, `Bearer ${owner.token}`]) {
        const res = await purge(subject, id, header);
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ code: 'UNAUTHORIZED', message: expect.any(String) });
      }
    }
  });

  it('403 MISSING_ACL for a key without attachment:purge, and nothing is purged', async () => {
    const other = await createAdminKey(app, ['asset:purge', 'audit_log:view', 'archive:view_all']);
    const posted = await postWithFiles(app, member.token, { ...g, uploaderId: member.userId });
    for (const [subject, id] of [
      ['user', member.userId],
      ['guild', g.guildId],
    ] as const) {
      const res = await purge(subject, id, other.header);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'MISSING_ACL', message: expect.any(String) });
    }
    expect(await state(posted.files[0])).toEqual({
      blob: true,
      row: { message_id: posted.messageId, expires_at: null },
    });
    // Not left for the next tests' counts.
    await purge('user', member.userId, key.header).expect(200);
  });

  it('404 for an unknown user or guild; 400 for a malformed id', async () => {
    const user = await purge('user', UNKNOWN_ID, key.header);
    expect(user.status).toBe(404);
    expect(user.body).toMatchObject({ code: 'UNKNOWN_USER' });
    const guild = await purge('guild', UNKNOWN_ID, key.header);
    expect(guild.status).toBe(404);
    expect(guild.body).toMatchObject({ code: 'UNKNOWN_GUILD' });
    const bad = await purge('user', 'abc', key.header);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_FORM_BODY' });
  });

  it("purges a user's files: counts, messages without them (MESSAGE_UPDATE), blobs gone after the sweep", async () => {
    const uploader = await registerUser(app);
    await addMember(app, g.guildId, uploader.userId);
    const asUploader = { ...g, uploaderId: uploader.userId };
    const first = await postWithFiles(app, uploader.token, asUploader, 2);
    const second = await postWithFiles(app, uploader.token, asUploader);
    const pending = await storeFile(app, asUploader);
    const others = await postWithFiles(app, owner.token, { ...g, uploaderId: owner.userId });
    const files = [...first.files, ...second.files, pending];
    const from = watcher.frames.length;

    const res = await purge('user', uploader.userId, key.header).set(
      'X-Audit-Log-Reason',
      'malware',
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      attachments: 4,
      bytes: files.reduce((sum, f) => sum + f.bytes.length, 0),
      messages: 2,
    });

    for (const messageId of [first.messageId, second.messageId]) {
      const shown = await getMessage(g.channelId, messageId);
      expect(shown.status).toBe(200);
      expect(shown.body).toMatchObject({ id: messageId, attachments: [] });
      const update = await watcher.next(
        (f) => f.t === 'MESSAGE_UPDATE' && f.d.id === messageId,
        5_000,
        from,
      );
      expect(update.d).toMatchObject({ id: messageId, guild_id: g.guildId, attachments: [] });
    }
    // Someone else's file in the same channel stays.
    const kept = await getMessage(g.channelId, others.messageId);
    expect(kept.body.attachments).toEqual([
      expect.objectContaining({ id: others.files[0].id, filename: others.files[0].filename }),
    ]);

    for (const file of files) {
      const row = await attachmentRow(app, file.id);
      if (row) expect(row).toEqual({ message_id: null, expires_at: null });
    }
    await sweepAway(files);
    for (const file of files) expect(await state(file)).toEqual({ blob: false, row: null });
    expect(await state(others.files[0])).toEqual({
      blob: true,
      row: { message_id: others.messageId, expires_at: null },
    });

    const [entry] = await db.query<Array<Record<string, unknown>>>(
      `SELECT actor_type, actor_id::text AS actor_id, target_type, target_id::text AS target_id,
              reason, metadata
         FROM audit_log_entries WHERE action = 'attachment.purge.user' AND target_id = $1`,
      [uploader.userId],
    );
    expect(entry).toEqual({
      actor_type: 'admin_key',
      actor_id: key.keyId,
      target_type: 'user',
      target_id: uploader.userId,
      reason: 'malware',
      metadata: { attachments: 4, bytes: res.body.bytes, messages: 2 },
    });

    // Nothing left to take.
    const again = await purge('user', uploader.userId, key.header);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ attachments: 0, bytes: 0, messages: 0 });
  });

  it("purges a guild's files whoever uploaded them; another guild's stay", async () => {
    const guild = await createGuild(app, owner.token);
    await allowFiles(app, owner.token, guild.guildId);
    await addMember(app, guild.guildId, member.userId);
    const mine = await postWithFiles(app, owner.token, { ...guild, uploaderId: owner.userId });
    const theirs = await postWithFiles(
      app,
      member.token,
      { ...guild, uploaderId: member.userId },
      2,
    );
    const elsewhere = await postWithFiles(app, owner.token, { ...g, uploaderId: owner.userId });
    const files = [...mine.files, ...theirs.files];

    const res = await purge('guild', guild.guildId, key.header);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      attachments: 3,
      bytes: files.reduce((sum, f) => sum + f.bytes.length, 0),
      messages: 2,
    });
    for (const messageId of [mine.messageId, theirs.messageId]) {
      const shown = await getMessage(guild.channelId, messageId);
      expect(shown.status).toBe(200);
      expect(shown.body.attachments).toEqual([]);
    }
    await sweepAway(files);
    expect(await state(elsewhere.files[0])).toEqual({
      blob: true,
      row: { message_id: elsewhere.messageId, expires_at: null },
    });
  });
});
