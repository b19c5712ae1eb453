import { readdir, readFile, stat } from 'node:fs/promises';
import { DataSource } from 'typeorm';
import { join } from 'node:path';
import type { ParleyApp } from '../../src/app.setup';
import { AppConfig } from '../../src/config/app.config';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { addMember, createGuild, createWebhook, type TestGuild } from '../helpers/guild-factories';

/** A 2×3 PNG (its header is what width/height are read from). */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAEklEQVR42mP8z8DwnwEIGBgYAAAv8gP9Zq7dWQAAAABJRU5ErkJggg==',
  'base64',
);

/** The ids of the channel's attachment rows. */
async function attachmentRows(app: ParleyApp, channelId: string): Promise<string[]> {
  const rows = await app
    .get(DataSource)
    .query<Array<{ id: string }>>('SELECT id FROM attachments WHERE channel_id = $1 ORDER BY id', [
      channelId,
    ]);
  return rows.map((r) => r.id);
}

/** How many blobs the channel has on disk (finished files and writes in flight). */
async function blobCount(app: ParleyApp, channelId: string): Promise<number> {
  const dir = join(app.get(AppConfig).blobDir, 'attachments', channelId);
  return (await readdir(dir).catch(() => [])).length;
}

/** Whether a blob of this attachment is on disk (the tests' BLOB_DIR). */
async function blobExists(app: ParleyApp, channelId: string, id: string): Promise<boolean> {
  const dir = app.get(AppConfig).blobDir;
  return stat(join(dir, 'attachments', channelId, id)).then(
    () => true,
    () => false,
  );
}

describe('attachments: multipart messages (Discord form: payload_json + files[n])', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let guild: TestGuild;

  beforeAll(async () => {
    app = await createTestApp({ env: { ATTACHMENT_MAX_BYTES: String(64 * 1024) } });
    owner = await registerUser(app);
    guild = await createGuild(app, owner.token);
  });
  afterAll(() => app.close());

  it('posts a message with files: sniffed types, image size, signed links that download the bytes', async () => {
    const text = Buffer.from('hello, file\n');
    const res = await http(app)
      .post(`/v1/channels/${guild.channelId}/messages`)
      .set('Authorization', owner.token)
      .field(
        'payload_json',
        JSON.stringify({
          content: 'two files',
          attachments: [{ id: 1, description: 'a tiny picture', filename: 'SPOILER_pic.png' }],
        }),
      )
      .attach('files[0]', text, { filename: 'notes.txt', contentType: 'image/png' })
      .attach('files[1]', PNG, { filename: 'pic.png', contentType: 'text/plain' });
    expect(res.status).toBe(201);
    expect(res.body.content).toBe('two files');
    const [pic, notes] = res.body.attachments;
    expect(pic).toMatchObject({
      filename: 'SPOILER_pic.png',
      description: 'a tiny picture',
      content_type: 'image/png',
      size: PNG.length,
      width: 2,
      height: 3,
      flags: 8,
    });
    expect(notes).toMatchObject({
      filename: 'notes.txt',
      content_type: 'text/plain; charset=utf-8',
      size: text.length,
      flags: 0,
    });
    expect(notes.url).toMatch(
      new RegExp(
        `^http://parley.test/v1/attachments/${guild.channelId}/${notes.id}/notes\\.txt\\?ex=[0-9a-f]+&is=[0-9a-f]+&hm=[0-9a-f]{64}$`,
      ),
    );
    expect(notes.proxy_url).toBe(notes.url);
    expect(await blobExists(app, guild.channelId, notes.id)).toBe(true);
    // The message as read back shows the same files.
    const read = await http(app)
      .get(`/v1/channels/${guild.channelId}/messages/${res.body.id}`)
      .set('Authorization', owner.token);
    expect(read.body.attachments.map((a: { id: string }) => a.id)).toEqual([pic.id, notes.id]);
  });

  it('takes a message of files only, and Discord paths answer 40005 past the size limit', async () => {
    const only = await http(app)
      .post(`/api/v10/channels/${guild.channelId}/messages`)
      .set('Authorization', owner.token)
      .attach('files[0]', Buffer.alloc(1000, 1), { filename: 'blob.bin' });
    expect(only.status).toBe(201);
    expect(only.body.content).toBe('');
    expect(only.body.attachments[0]).toMatchObject({
      filename: 'blob.bin',
      content_type: 'application/octet-stream',
      size: 1000,
    });
    const big = await http(app)
      .post(`/api/v10/channels/${guild.channelId}/messages`)
      .set('Authorization', owner.token)
      .field('payload_json', JSON.stringify({ content: 'too big' }))
      .attach('files[0]', Buffer.alloc(64 * 1024 + 1, 2), { filename: 'big.bin' });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ code: 40005 });
    const v1 = await http(app)
      .post(`/v1/channels/${guild.channelId}/messages`)
      .set('Authorization', owner.token)
      .attach('files[0]', Buffer.alloc(64 * 1024 + 1, 2), { filename: 'big.bin' });
    expect(v1.status).toBe(413);
    expect(v1.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('refuses an 11th file, and keeps no blob of the ten before it', async () => {
    const before = await http(app)
      .get(`/v1/channels/${guild.channelId}/messages?limit=1`)
      .set('Authorization', owner.token);
    const rowsBefore = await attachmentRows(app, guild.channelId);
    const blobsBefore = await blobCount(app, guild.channelId);
    let req = http(app)
      .post(`/v1/channels/${guild.channelId}/messages`)
      .set('Authorization', owner.token)
      .field('payload_json', JSON.stringify({ content: 'eleven' }));
    for (let i = 0; i < 11; i++)
      req = req.attach(`files[${i}]`, Buffer.from(`file ${i}`), `f${i}.txt`);
    const res = await req;
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_FORM_BODY' });
    expect(res.body.errors[0]).toMatchObject({ path: 'files', code: 'BASE_TYPE_MAX_LENGTH' });
    const after = await http(app)
      .get(`/v1/channels/${guild.channelId}/messages?limit=1`)
      .set('Authorization', owner.token);
    expect(after.body[0].id).toBe(before.body[0].id);
    // The ten files stored before the refusal are gone again: no row, no blob.
    expect(await attachmentRows(app, guild.channelId)).toEqual(rowsBefore);
    expect(await blobCount(app, guild.channelId)).toBe(blobsBefore);
  });

  it('checks the caller before reading a byte: 401 without credentials, 404 for a stranger, 403 without ATTACH_FILES', async () => {
    const anonymous = await http(app)
      .post(`/v1/channels/${guild.channelId}/messages`)
      .attach('files[0]', Buffer.from('x'), 'x.txt');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: 'UNAUTHORIZED' });
    const stranger = await registerUser(app);
    const refused = await http(app)
      .post(`/v1/channels/${guild.channelId}/messages`)
      .set('Authorization', stranger.token)
      .attach('files[0]', Buffer.from('x'), 'x.txt');
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ code: 'UNKNOWN_CHANNEL' });
    // A member whose @everyone lost ATTACH_FILES.
    const member = await registerUser(app);
    await addMember(app, guild.guildId, member.userId);
    const roles = await http(app)
      .get(`/v1/guilds/${guild.guildId}/roles`)
      .set('Authorization', owner.token);
    const everyone = roles.body.find((r: { id: string }) => r.id === guild.guildId);
    const without = BigInt(everyone.permissions) & ~(1n << 15n);
    const patched = await http(app)
      .patch(`/v1/guilds/${guild.guildId}/roles/${guild.guildId}`)
      .set('Authorization', owner.token)
      .send({ permissions: without.toString() });
    expect(patched.status).toBe(200);
    const noAttach = await http(app)
      .post(`/v1/channels/${guild.channelId}/messages`)
      .set('Authorization', member.token)
      .attach('files[0]', Buffer.from('x'), 'x.txt');
    expect(noAttach.status).toBe(403);
    expect(noAttach.body).toMatchObject({ code: 'MISSING_PERMISSIONS' });
    // Words alone (JSON) need no ATTACH_FILES.
    const json = await http(app)
      .post(`/v1/channels/${guild.channelId}/messages`)
      .set('Authorization', member.token)
      .send({ content: 'words only' });
    expect(json.status).toBe(201);
    await http(app)
      .patch(`/v1/guilds/${guild.guildId}/roles/${guild.guildId}`)
      .set('Authorization', owner.token)
      .send({ permissions: everyone.permissions });
  });

  it('edits: keeps the attachments named, adds new files, and lets go of the rest', async () => {
    const posted = await http(app)
      .post(`/v1/channels/${guild.channelId}/messages`)
      .set('Authorization', owner.token)
      .field('payload_json', JSON.stringify({ content: 'edit me' }))
      .attach('files[0]', Buffer.from('one'), 'one.txt')
      .attach('files[1]', Buffer.from('two'), 'two.txt');
    expect(posted.status).toBe(201);
    const [one, two] = posted.body.attachments;
    const edited = await http(app)
      .patch(`/v1/channels/${guild.channelId}/messages/${posted.body.id}`)
      .set('Authorization', owner.token)
      .field(
        'payload_json',
        JSON.stringify({ attachments: [{ id: two.id }, { id: 0, description: 'new' }] }),
      )
      .attach('files[0]', Buffer.from('three'), 'three.txt');
    expect(edited.status).toBe(200);
    expect(edited.body.attachments.map((a: { filename: string }) => a.filename)).toEqual([
      'two.txt',
      'three.txt',
    ]);
    expect(edited.body.attachments[1].description).toBe('new');
    // The dropped attachment is no longer the message's: the sweep deletes its blob.
    const dropped = await app
      .get(DataSource)
      .query<Array<{ message_id: string | null }>>(
        'SELECT message_id FROM attachments WHERE id = $1',
        [one.id],
      );
    // (or already deleted by the sweep the edit enqueued)
    expect(dropped.every((r) => r.message_id === null)).toBe(true);
    // JSON edit without `attachments` keeps them all.
    const text = await http(app)
      .patch(`/v1/channels/${guild.channelId}/messages/${posted.body.id}`)
      .set('Authorization', owner.token)
      .send({ content: 'still two' });
    expect(text.body.attachments).toHaveLength(2);
    expect(
      await readFile(
        join(app.get(AppConfig).blobDir, 'attachments', guild.channelId, two.id),
        'utf8',
      ),
    ).toBe('two');
  });

  it('executes a webhook with files (Discord form), and with files alone', async () => {
    const hook = await createWebhook(app, owner.token, guild.channelId);
    const res = await http(app)
      .post(`/v1/webhooks/${hook.id}/${hook.token}?wait=true`)
      .field(
        'payload_json',
        JSON.stringify({
          content: 'build log',
          username: 'CI',
          attachments: [{ id: 0, description: 'the log' }],
        }),
      )
      .attach('files[0]', Buffer.from('step 1 ok\nstep 2 ok\n'), 'build.log');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ content: 'build log', webhook_id: hook.id });
    expect(res.body.author.username).toBe('CI');
    expect(res.body.attachments).toHaveLength(1);
    expect(res.body.attachments[0]).toMatchObject({
      filename: 'build.log',
      description: 'the log',
      content_type: 'text/plain; charset=utf-8',
      size: 20,
    });
    const row = await app
      .get(DataSource)
      .query<Array<{ message_id: string }>>(
        'SELECT message_id::text FROM attachments WHERE id = $1',
        [res.body.attachments[0].id],
      );
    expect(row).toEqual([{ message_id: res.body.id }]);
    const read = await http(app)
      .get(`/v1/channels/${guild.channelId}/messages/${res.body.id}`)
      .set('Authorization', owner.token);
    expect(read.body.attachments[0].id).toBe(res.body.attachments[0].id);

    const only = await http(app)
      .post(`/api/v10/webhooks/${hook.id}/${hook.token}?wait=true`)
      .attach('files[0]', PNG, 'shot.png');
    expect(only.status).toBe(200);
    expect(only.body.content).toBe('');
    expect(only.body.attachments[0]).toMatchObject({
      content_type: 'image/png',
      width: 2,
      height: 3,
    });
    // A wrong token is refused before a byte is read, and nothing is stored.
    const rowsBefore = await attachmentRows(app, guild.channelId);
    const wrong = await http(app)
      .post(`/v1/webhooks/${hook.id}/${'x'.repeat(68)}`)
      .attach('files[0]', Buffer.from('nope'), 'nope.txt');
    expect(wrong.status).toBe(404);
    expect(wrong.body).toMatchObject({ code: 'UNKNOWN_WEBHOOK' });
    expect(await attachmentRows(app, guild.channelId)).toEqual(rowsBefore);
  });
});
