import type { ParleyApp } from '../../src/app.setup';
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import yauzl from 'yauzl';
import { SweeperService } from '../../src/common/maintenance/sweeper.service';
import { AppConfig } from '../../src/config/app.config';
import { createTestApp, fetchLink, http } from '../helpers/app';
import { createAdminKey, type TestAdminKey } from '../helpers/admin';
import { registerUser, type TestUser } from '../helpers/factories';
import {
  addMember,
  createGuild,
  createWebhook,
  type TestWebhook,
} from '../helpers/guild-factories';
import { createApplication, issueTokens, type TestApplication } from '../helpers/oauth2-factories';

type SubjectType = 'user' | 'guild';

/** The entries of a zip, as text. */
function unzip(buffer: Buffer): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      const files = new Map<string, string>();
      zip.on('error', reject);
      zip.on('end', () => resolve(files));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('error', reject);
          stream.on('end', () => {
            files.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

describe('Admin archives', () => {
  let app: ParleyApp;
  let db: DataSource;
  let root: TestAdminKey;
  let owner: TestUser;
  let member: TestUser;
  let guild: { guildId: string; channelId: string };
  let hook: TestWebhook;
  let client: TestApplication;
  let oauth: { access_token: string; refresh_token: string };
  let secrets: Record<string, string>;

  const trigger = (key: TestAdminKey, type: SubjectType, id: string, reason?: string) => {
    const req = http(app).post(`/v1/admin/archives/${type}`).set('Authorization', key.header);
    if (reason) req.set('X-Audit-Log-Reason', encodeURIComponent(reason));
    return req.send(type === 'user' ? { user_id: id } : { guild_id: id });
  };

  const details = (key: TestAdminKey, type: SubjectType, subjectId: string, archiveId: string) =>
    http(app)
      .get(`/v1/admin/archives/${type}/${subjectId}/${archiveId}`)
      .set('Authorization', key.header);

  const downloadUrl = (
    key: TestAdminKey,
    type: SubjectType,
    subjectId: string,
    archiveId: string,
  ) =>
    http(app)
      .get(`/v1/admin/archives/${type}/${subjectId}/${archiveId}/download`)
      .set('Authorization', key.header);

  const list = (key: TestAdminKey, body: Record<string, unknown> = {}) =>
    http(app).post('/v1/admin/archives/list').set('Authorization', key.header).send(body);

  /** Polls the details until the build is over; returns them. */
  async function completed(
    key: TestAdminKey,
    type: SubjectType,
    subjectId: string,
    archiveId: string,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const res = await details(key, type, subjectId, archiveId);
      expect(res.status).toBe(200);
      if (res.body.status === 'completed') return res.body as Record<string, unknown>;
      if (res.body.status === 'failed' || Date.now() > deadline) {
        throw new Error(`archive did not complete: ${JSON.stringify(res.body)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Triggers, waits for completion, downloads through the signed link and unzips. */
  async function build(type: SubjectType, subjectId: string) {
    const res = await trigger(root, type, subjectId);
    expect(res.status).toBe(200);
    const archiveId = res.body.archive_id as string;
    await completed(root, type, subjectId, archiveId);
    const link = await downloadUrl(root, type, subjectId, archiveId);
    expect(link.status).toBe(200);
    const file = await fetchLink(app, link.body.download_url as string);
    expect(file.status).toBe(200);
    return { archiveId, url: link.body.download_url as string, files: await unzip(file.body) };
  }

  function expectNoSecrets(files: Map<string, string>) {
    const leaks: string[] = [];
    for (const [name, text] of files) {
      for (const [label, secret] of Object.entries(secrets)) {
        if (text.includes(secret)) leaks.push(`${name} contains the ${label}`);
      }
      for (const column of ['token_hash', 'password_hash', 'client_secret', 'token_encrypted']) {
        if (text.includes(column)) leaks.push(`${name} has a ${column} field`);
      }
    }
    expect(leaks).toEqual([]);
  }

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    root = await createAdminKey(app, ['*']);
    owner = await registerUser(app);
    member = await registerUser(app);
    guild = await createGuild(app, owner.token);
    await addMember(app, guild.guildId, member.userId);
    for (const [who, content] of [
      [owner, 'owner says hello from the archive test'],
      [member, 'member answers in the archive test'],
      [owner, 'owner says goodbye'],
    ] as Array<[TestUser, string]>) {
      const res = await http(app)
        .post(`/v1/channels/${guild.channelId}/messages`)
        .set('Authorization', who.token)
        .send({ content });
      expect(res.status).toBe(201);
    }
    hook = await createWebhook(app, owner.token, guild.channelId, 'Archive Hook');
    const executed = await http(app)
      .post(`/v1/webhooks/${hook.id}/${hook.token}?wait=true`)
      .send({ content: 'posted by the webhook' });
    expect(executed.status).toBe(200);
    client = await createApplication(app, owner);
    oauth = await issueTokens(app, owner, client, 'identify email');
    secrets = {
      'session token': owner.token,
      'session id hash': createHash('sha256').update(owner.token).digest('base64url'),
      'member session token': member.token,
      password: owner.password,
      'bot token': client.botToken,
      'bot token secret': client.botToken.split('.')[1],
      'client secret': client.clientSecret,
      'webhook token': hook.token,
      'access token': oauth.access_token,
      'refresh token': oauth.refresh_token,
      'admin key': root.key,
      // Everything after `adm_<id>_` (the secret is base64url and may itself contain "_").
      'admin key secret': root.key.slice(`adm_${root.keyId}_`.length),
    };
  });
  afterAll(() => app.close());

  it('builds a user archive: queued, then completed; the signed link serves a zip without credentials', async () => {
    const res = await trigger(root, 'user', owner.userId, 'GDPR request #42');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      archive_id: expect.stringMatching(/^\d+$/),
      subject_type: 'user',
      subject_id: owner.userId,
      status: 'queued',
      progress: 0,
      requested_by: { key_id: root.keyId, user_id: root.owner.userId },
      created_at: expect.any(String),
      started_at: null,
      completed_at: null,
      expires_at: expect.any(String),
      file_location: null,
      file_size: null,
      error: null,
    });
    const days = (Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)) / 86_400_000;
    expect(days).toBeCloseTo(30, 3);
    const archiveId = res.body.archive_id as string;

    const audit = await db.query(
      `SELECT actor_type, actor_id::text, reason, metadata FROM audit_log_entries
        WHERE action = 'archive.trigger.user' AND target_id = $1`,
      [owner.userId],
    );
    expect(audit).toEqual([
      {
        actor_type: 'admin_key',
        actor_id: root.keyId,
        reason: 'GDPR request #42',
        metadata: { archive_id: archiveId },
      },
    ]);

    const done = await completed(root, 'user', owner.userId, archiveId);
    expect(done).toEqual({
      ...res.body,
      status: 'completed',
      progress: 100,
      started_at: expect.any(String),
      completed_at: expect.any(String),
      file_location: `archives/${archiveId}.zip`,
      file_size: expect.any(Number),
    });

    const link = await downloadUrl(root, 'user', owner.userId, archiveId);
    expect(link.status).toBe(200);
    expect(link.body).toEqual({
      download_url: expect.stringMatching(
        new RegExp(
          `^http://parley\\.test/v1/archives/${archiveId}/download\\?expires=\\d+&signature=[A-Za-z0-9_-]{43}$`,
        ),
      ),
      expires_at: expect.any(String),
    });
    const ttl = Date.parse(link.body.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(23 * 3_600_000);
    expect(ttl).toBeLessThanOrEqual(24 * 3_600_000);

    const file = await fetchLink(app, link.body.download_url);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/zip');
    expect(file.headers['content-disposition']).toBe(
      `attachment; filename="parley-user-${owner.userId}-${archiveId}.zip"`,
    );
    expect(file.body.length).toBe(done.file_size);

    const files = await unzip(file.body);
    expect([...files.keys()].sort()).toEqual([
      'applications.json',
      'attachments.json',
      'guild_memberships.json',
      'manifest.json',
      'messages.json',
      'oauth2_authorizations.json',
      'profile.json',
      'sessions.json',
    ]);
    const profile = JSON.parse(files.get('profile.json')!);
    expect(profile).toMatchObject({
      id: owner.userId,
      username: owner.username,
      email: owner.email,
    });
    const messages = JSON.parse(files.get('messages.json')!) as Array<{ content: string }>;
    expect(messages.map((m) => m.content)).toEqual([
      'owner says hello from the archive test',
      'owner says goodbye',
    ]);
    const sessions = JSON.parse(files.get('sessions.json')!) as Array<Record<string, unknown>>;
    expect(sessions.length).toBeGreaterThanOrEqual(1);
    expect(Object.keys(sessions[0]).sort()).toEqual(
      ['approx_last_used_at', 'client_info', 'created_at', 'id', 'ip'].sort(),
    );
    expect(JSON.parse(files.get('guild_memberships.json')!)).toEqual([
      expect.objectContaining({ guild_id: guild.guildId }),
    ]);
    expect(JSON.parse(files.get('applications.json')!)).toEqual([
      expect.objectContaining({ id: client.id, bot_user_id: client.botUserId }),
    ]);
    expect(JSON.parse(files.get('oauth2_authorizations.json')!)).toEqual([
      expect.objectContaining({ application_id: client.id, scopes: ['identify', 'email'] }),
    ]);
    expectNoSecrets(files);
  });

  it('builds a guild archive with channels, roles, members, every message and webhooks without tokens', async () => {
    const { files } = await build('guild', guild.guildId);
    expect([...files.keys()].sort()).toEqual([
      'channels.json',
      'guild.json',
      'manifest.json',
      'members.json',
      'messages.json',
      'roles.json',
      'webhooks.json',
    ]);
    expect(JSON.parse(files.get('guild.json')!)).toMatchObject({
      id: guild.guildId,
      owner_id: owner.userId,
    });
    expect(JSON.parse(files.get('channels.json')!)).toEqual([
      expect.objectContaining({ id: guild.channelId }),
    ]);
    const members = JSON.parse(files.get('members.json')!) as Array<{ user: { id: string } }>;
    expect(members.map((m) => m.user.id).sort()).toEqual([owner.userId, member.userId].sort());
    const messages = JSON.parse(files.get('messages.json')!) as Array<Record<string, unknown>>;
    expect(messages.map((m) => [m.author_id, m.webhook_id, m.content])).toEqual([
      [owner.userId, null, 'owner says hello from the archive test'],
      [member.userId, null, 'member answers in the archive test'],
      [owner.userId, null, 'owner says goodbye'],
      [null, hook.id, 'posted by the webhook'],
    ]);
    expect(JSON.parse(files.get('webhooks.json')!)).toEqual([
      expect.objectContaining({ id: hook.id, name: 'Archive Hook', creator_id: owner.userId }),
    ]);
    expect(JSON.parse(files.get('roles.json')!)).toEqual([
      expect.objectContaining({ id: guild.guildId, name: '@everyone' }),
    ]);
    expectNoSecrets(files);
  });

  it('refuses tampered, foreign and expired links with 403, and expired archives', async () => {
    const userArchive = await build('user', member.userId);
    const guildArchive = await build('guild', guild.guildId);
    const url = new URL(userArchive.url);
    const signature = url.searchParams.get('signature')!;
    const expires = url.searchParams.get('expires')!;

    const variants: Record<string, string> = {
      'tampered signature': userArchive.url.replace(
        `signature=${signature}`,
        `signature=${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`,
      ),
      'later expiry': userArchive.url.replace(
        `expires=${expires}`,
        `expires=${Number(expires) + 3600}`,
      ),
      'foreign signature': userArchive.url.replace(
        `/archives/${userArchive.archiveId}/`,
        `/archives/${guildArchive.archiveId}/`,
      ),
      'no signature': `${url.origin}${url.pathname}?expires=${expires}`,
      'garbage id': userArchive.url.replace(
        `/archives/${userArchive.archiveId}/`,
        '/archives/abc/',
      ),
    };
    for (const [label, variant] of Object.entries(variants)) {
      const res = await fetchLink(app, variant);
      expect({ label, status: res.status, code: JSON.parse(res.body.toString()).code }).toEqual({
        label,
        status: 403,
        code: 'ACCESS_DENIED',
      });
    }
    // The untouched link still works.
    expect((await fetchLink(app, userArchive.url)).status).toBe(200);

    // A link past its expiry: another instance (same database and SECRET_KEY) hands out 1 s links.
    const shortLived = await createTestApp({ env: { ARCHIVE_DOWNLOAD_URL_TTL_SECONDS: '1' } });
    try {
      const res = await http(shortLived)
        .get(`/v1/admin/archives/user/${member.userId}/${userArchive.archiveId}/download`)
        .set('Authorization', root.header);
      expect(res.status).toBe(200);
      const until = Date.parse(res.body.expires_at);
      expect(until - Date.now()).toBeLessThanOrEqual(1_000);
      await new Promise((r) => setTimeout(r, Math.max(0, until - Date.now()) + 50));
      const expired = await fetchLink(app, res.body.download_url);
      expect(expired.status).toBe(403);
      expect(JSON.parse(expired.body.toString()).code).toBe('ACCESS_DENIED');
    } finally {
      await shortLived.close();
    }

    // The archive itself expires: reported `expired`, no new link, old links refused.
    await db.query(`UPDATE archives SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      userArchive.archiveId,
    ]);
    const info = await details(root, 'user', member.userId, userArchive.archiveId);
    expect(info.body).toMatchObject({ status: 'expired', file_location: null, file_size: null });
    const again = await downloadUrl(root, 'user', member.userId, userArchive.archiveId);
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('ARCHIVE_EXPIRED');
    expect((await fetchLink(app, userArchive.url)).status).toBe(403);
  });

  it('the maintenance sweep deletes the file of an expired archive and keeps its row, reported expired', async () => {
    const expiring = await build('user', owner.userId);
    const kept = await build('guild', guild.guildId);
    const blobDir = app.get(AppConfig).blobDir;
    const fileOf = async (type: SubjectType, subjectId: string, archiveId: string) => {
      const info = await details(root, type, subjectId, archiveId);
      expect(info.body).toMatchObject({ status: 'completed', file_location: expect.any(String) });
      const path = join(blobDir, info.body.file_location as string);
      expect(statSync(path).size).toBe(info.body.file_size);
      return path;
    };
    const expiringFile = await fileOf('user', owner.userId, expiring.archiveId);
    const keptFile = await fileOf('guild', guild.guildId, kept.archiveId);
    expect(expiringFile).toBe(join(blobDir, 'archives', `${expiring.archiveId}.zip`));

    await db.query(`UPDATE archives SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      expiring.archiveId,
    ]);
    const counts = await app.get(SweeperService).runOnce();
    expect(counts.archive_files).toBeGreaterThanOrEqual(1);

    // The zip is gone from storage; the row stays, without a file.
    expect(existsSync(expiringFile)).toBe(false);
    const rows = await db.query(
      'SELECT status, blob_key, size_bytes::int AS size_bytes FROM archives WHERE id = $1',
      [expiring.archiveId],
    );
    expect(rows).toEqual([{ status: 'completed', blob_key: null, size_bytes: expect.any(Number) }]);
    // An archive that has not expired keeps its file.
    expect(existsSync(keptFile)).toBe(true);
    expect((await fetchLink(app, kept.url)).status).toBe(200);

    // The API reports it expired: details, no new link, the link issued before refused.
    const info = await details(root, 'user', owner.userId, expiring.archiveId);
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({
      archive_id: expiring.archiveId,
      status: 'expired',
      file_location: null,
      file_size: null,
    });
    const again = await downloadUrl(root, 'user', owner.userId, expiring.archiveId);
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('ARCHIVE_EXPIRED');
    const stale = await fetchLink(app, expiring.url);
    expect(stale.status).toBe(403);
    expect(JSON.parse(stale.body.toString()).code).toBe('ACCESS_DENIED');
    const listed = await list(root, { subject_id: owner.userId, include_expired: true });
    expect(listed.body.archives).toContainEqual(
      expect.objectContaining({ archive_id: expiring.archiveId, status: 'expired' }),
    );

    // A second sweep finds nothing more to do for it, and the row is still there.
    await app.get(SweeperService).runOnce();
    const after = await db.query('SELECT blob_key FROM archives WHERE id = $1', [
      expiring.archiveId,
    ]);
    expect(after).toEqual([{ blob_key: null }]);
  });

  it('answers 400 ARCHIVE_NOT_READY while the archive is being built', async () => {
    const res = await trigger(root, 'user', owner.userId);
    expect(res.status).toBe(200);
    const archiveId = res.body.archive_id as string;
    // Hold the row: the build cannot move it to completed meanwhile (whichever instance runs it).
    const runner = db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const [row] = await runner.query('SELECT status FROM archives WHERE id = $1 FOR UPDATE', [
        archiveId,
      ]);
      expect(['queued', 'running']).toContain(row.status);
      const early = await downloadUrl(root, 'user', owner.userId, archiveId);
      expect(early.status).toBe(400);
      expect(early.body).toMatchObject({ code: 'ARCHIVE_NOT_READY', status: row.status });
      const info = await details(root, 'user', owner.userId, archiveId);
      expect(info.body).toMatchObject({ status: row.status, file_location: null });
    } finally {
      await runner.commitTransaction();
      await runner.release();
    }
    await completed(root, 'user', owner.userId, archiveId);
  });

  it('lists archives within the key’s visibility, filtered and paginated', async () => {
    const userKey = await createAdminKey(app, ['archive:trigger:user']);
    const userKey2 = await createAdminKey(app, ['archive:trigger:user']);
    const guildKey = await createAdminKey(app, ['archive:trigger:guild']);
    const viewAll = await createAdminKey(app, ['archive:view_all']);
    const subject = await registerUser(app);

    const a1 = (await trigger(userKey, 'user', subject.userId)).body.archive_id as string;
    const a2 = (await trigger(userKey2, 'user', subject.userId)).body.archive_id as string;
    const a3 = (await trigger(root, 'user', subject.userId)).body.archive_id as string;
    const g1 = (await trigger(guildKey, 'guild', guild.guildId)).body.archive_id as string;
    const denied = await trigger(userKey, 'guild', guild.guildId);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('MISSING_ACL');

    const ids = (body: { archives: Array<{ archive_id: string }> }) =>
      body.archives.map((a) => a.archive_id);

    const own = await list(userKey);
    expect(own.status).toBe(200);
    expect(own.body).toEqual({
      archives: [expect.objectContaining({ archive_id: a1, subject_type: 'user' })],
      total: 1,
      next_cursor: null,
    });
    expect(ids((await list(userKey2)).body)).toEqual([a2]);
    expect(ids((await list(guildKey)).body)).toEqual([g1]);

    const all = await list(viewAll, { subject_type: 'user', subject_id: subject.userId });
    expect(all.body).toMatchObject({ total: 3, next_cursor: null });
    expect(ids(all.body)).toEqual([a3, a2, a1]);
    expect(ids((await list(viewAll, { requested_by: userKey2.keyId })).body)).toEqual([a2]);
    expect(ids((await list(viewAll, { requested_by: guildKey.owner.userId })).body)).toEqual([g1]);

    const page1 = await list(viewAll, { subject_id: subject.userId, limit: 2 });
    expect(ids(page1.body)).toEqual([a3, a2]);
    expect(page1.body.next_cursor).toBe(a2);
    const page2 = await list(viewAll, { subject_id: subject.userId, limit: 2, cursor: a2 });
    expect(page2.body).toMatchObject({ total: 3, next_cursor: null });
    expect(ids(page2.body)).toEqual([a1]);

    // Details follow the same visibility: another key's archive is unknown.
    expect((await details(userKey, 'user', subject.userId, a1)).status).toBe(200);
    const hidden = await details(userKey, 'user', subject.userId, a2);
    expect(hidden.status).toBe(404);
    expect(hidden.body.code).toBe('UNKNOWN_ARCHIVE');
    expect((await downloadUrl(userKey, 'user', subject.userId, a2)).body.code).toBe(
      'UNKNOWN_ARCHIVE',
    );
    expect((await details(guildKey, 'user', subject.userId, a1)).status).toBe(404);
    expect((await details(viewAll, 'user', subject.userId, a2)).status).toBe(200);
    // The path must name the archive's own subject.
    expect((await details(root, 'guild', subject.userId, a1)).status).toBe(404);
    expect((await details(root, 'user', owner.userId, a1)).status).toBe(404);
    expect((await details(root, 'users' as SubjectType, subject.userId, a1)).body.code).toBe(
      'UNKNOWN_ARCHIVE',
    );

    // Expired archives are listed only when asked for.
    await db.query(`UPDATE archives SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      a1,
    ]);
    expect(ids((await list(userKey)).body)).toEqual([]);
    const withExpired = await list(userKey, { include_expired: true });
    expect(withExpired.body.archives).toEqual([
      expect.objectContaining({ archive_id: a1, status: 'expired' }),
    ]);
    for (const id of [a2, a3]) await completed(root, 'user', subject.userId, id);
    await completed(root, 'guild', guild.guildId, g1);
  });

  it('validates input: 400 with field paths, 404 for unknown subjects', async () => {
    const bad = await trigger(root, 'user', 'not-an-id');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      code: 'INVALID_FORM_BODY',
      errors: [expect.objectContaining({ path: 'user_id' })],
    });
    const unknownUser = await trigger(root, 'user', '1');
    expect(unknownUser.status).toBe(404);
    expect(unknownUser.body.code).toBe('UNKNOWN_USER');
    const unknownGuild = await trigger(root, 'guild', '1');
    expect(unknownGuild.status).toBe(404);
    expect(unknownGuild.body.code).toBe('UNKNOWN_GUILD');
    const badList = await list(root, {
      limit: 500,
      subject_type: 'planet',
      include_expired: 'yes',
    });
    expect(badList.status).toBe(400);
    expect(badList.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'include_expired',
      'limit',
      'subject_type',
    ]);
    // No archive row for refused requests.
    const rows = await db.query(`SELECT count(*)::int AS n FROM archives WHERE subject_id = 1`);
    expect(rows[0].n).toBe(0);
  });

  it('401 without an admin key and 403 MISSING_ACL without an archive ACL on every archive route', async () => {
    const other = await createAdminKey(app, ['audit_log:view', 'asset:purge']);
    const routes: Array<[string, string, object | undefined]> = [
      ['post', '/v1/admin/archives/user', { user_id: owner.userId }],
      ['post', '/v1/admin/archives/guild', { guild_id: guild.guildId }],
      ['post', '/v1/admin/archives/list', {}],
      ['get', `/v1/admin/archives/user/${owner.userId}/1`, undefined],
      ['get', `/v1/admin/archives/user/${owner.userId}/1/download`, undefined],
    ];
    for (const [method, path, body] of routes) {
      const anon = await (method === 'get' ? http(app).get(path) : http(app).post(path).send(body));
      expect({ path, status: anon.status, code: anon.body.code }).toEqual({
        path,
        status: 401,
        code: 'UNAUTHORIZED',
      });
      const session = await (method === 'get'
        ? http(app).get(path).set('Authorization', owner.token)
        : http(app).post(path).set('Authorization', owner.token).send(body));
      expect({ path, status: session.status }).toEqual({ path, status: 401 });
      const req =
        method === 'get'
          ? http(app).get(path).set('Authorization', other.header)
          : http(app).post(path).set('Authorization', other.header).send(body);
      const res = await req;
      expect({ path, status: res.status, code: res.body.code }).toEqual({
        path,
        status: 403,
        code: 'MISSING_ACL',
      });
    }
  });

  it('documents the routes with their ACLs, and the signed download route', async () => {
    const doc = (await http(app).get('/docs/openapi.json')).body;
    const list = doc.paths['/v1/admin/archives/list'].post;
    expect(list.operationId).toBe('list_archives');
    expect(list.description.split('\n')[0]).toContain(
      '`archive:view_all`, `archive:trigger:user`, `archive:trigger:guild`',
    );
    const download = doc.paths['/v1/archives/{archiveId}/download'].get;
    expect(download.security).toEqual([]);
    expect(Object.keys(download.responses['200'].content)).toEqual(['application/zip']);
    expect(doc.components.schemas.AdminArchiveResponseSchema.properties.status.enum).toEqual([
      'queued',
      'running',
      'completed',
      'failed',
      'expired',
    ]);
  });
});
