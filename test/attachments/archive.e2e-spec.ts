import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import yauzl from 'yauzl';
import type { ParleyApp } from '../../src/app.setup';
import { BlobStorage } from '../../src/infra/storage/blob-storage';
import { createTestApp, fetchLink, http } from '../helpers/app';
import { createAdminKey, type TestAdminKey } from '../helpers/admin';
import { allowFiles, postWithFiles, storeFile } from '../helpers/attachments';
import { registerUser, type TestUser } from '../helpers/factories';
import { addMember, createGuild, type TestGuild } from '../helpers/guild-factories';

/** The entries of a zip, byte for byte. */
function unzip(buffer: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      const files = new Map<string, Buffer>();
      zip.on('error', reject);
      zip.on('end', () => resolve(files));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('error', reject);
          stream.on('end', () => {
            files.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

/** The user data archive carries the files the user uploaded, streamed from blob storage. */
describe('attachments: the user data archive', () => {
  let app: ParleyApp;
  let root: TestAdminKey;
  let user: TestUser;
  let other: TestUser;
  let g: TestGuild;

  beforeAll(async () => {
    app = await createTestApp();
    root = await createAdminKey(app, ['archive:trigger:user']);
    [user, other] = await Promise.all([registerUser(app), registerUser(app)]);
    g = await createGuild(app, user.token);
    await allowFiles(app, user.token, g.guildId);
    await addMember(app, g.guildId, other.userId);
  });

  afterAll(async () => {
    await app?.close();
  });

  async function archiveOf(userId: string): Promise<Map<string, Buffer>> {
    const res = await http(app)
      .post('/v1/admin/archives/user')
      .set('Authorization', root.header)
      .send({ user_id: userId });
    expect(res.status).toBe(200);
    const id = res.body.archive_id as string;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const details = await http(app)
        .get(`/v1/admin/archives/user/${userId}/${id}`)
        .set('Authorization', root.header);
      expect(details.status).toBe(200);
      if (details.body.status === 'completed') break;
      if (details.body.status === 'failed' || Date.now() > deadline) {
        throw new Error(`archive did not complete: ${JSON.stringify(details.body)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const link = await http(app)
      .get(`/v1/admin/archives/user/${userId}/${id}/download`)
      .set('Authorization', root.header);
    expect(link.status).toBe(200);
    const file = await fetchLink(app, link.body.download_url as string);
    expect(file.status).toBe(200);
    return unzip(file.body as Buffer);
  }

  it('holds attachments/<id>/<filename> with the bytes of each file the user uploaded, listed in attachments.json', async () => {
    const asUser = { ...g, uploaderId: user.userId };
    // Large enough to span many chunks of the stream (and compressible data would hide nothing).
    const posted = await postWithFiles(app, user.token, asUser, 2);
    const big = await storeFile(app, asUser, randomBytes(300 * 1024), 'big photo.jpg');
    const pending = await storeFile(app, asUser, randomBytes(1000), 'draft.txt');
    const expired = await storeFile(app, asUser);
    await app
      .get(DataSource)
      .query(`UPDATE attachments SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        expired.id,
      ]);
    // Someone else's file in the same channel is not this user's data.
    const theirs = await postWithFiles(app, other.token, { ...g, uploaderId: other.userId });

    const files = await archiveOf(user.userId);
    const included = [...posted.files, big, pending];
    for (const file of included) {
      const entry = files.get(`attachments/${file.id}/${file.filename}`);
      expect({ name: file.filename, equal: entry?.equals(file.bytes) }).toEqual({
        name: file.filename,
        equal: true,
      });
    }
    const names = [...files.keys()];
    expect(names.filter((n) => n.startsWith('attachments/')).sort()).toEqual(
      included.map((f) => `attachments/${f.id}/${f.filename}`).sort(),
    );
    expect(names.some((n) => n.includes(expired.id) || n.includes(theirs.files[0].id))).toBe(false);

    const listing = JSON.parse(files.get('attachments.json')!.toString('utf8')) as Array<
      Record<string, unknown>
    >;
    expect(listing).toEqual(
      included
        .map((f) => ({
          id: f.id,
          channel_id: g.channelId,
          message_id: posted.files.includes(f) ? posted.messageId : null,
          filename: f.filename,
          content_type: expect.any(String),
          size: f.bytes.length,
          created_at: expect.any(String),
          file: `attachments/${f.id}/${f.filename}`,
        }))
        .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1)),
    );
    const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8')) as {
      files: string[];
    };
    expect(manifest.files).toContain('attachments.json');
  });

  it('leaves out a file whose blob is gone, and still completes', async () => {
    const lonely = await registerUser(app);
    await addMember(app, g.guildId, lonely.userId);
    const kept = await storeFile(app, { ...g, uploaderId: lonely.userId });
    const lost = await storeFile(app, { ...g, uploaderId: lonely.userId });
    await app.get(BlobStorage).delete(lost.key);
    const files = await archiveOf(lonely.userId);
    expect([...files.keys()].filter((n) => n.startsWith('attachments/'))).toEqual([
      `attachments/${kept.id}/${kept.filename}`,
    ]);
    const listing = JSON.parse(files.get('attachments.json')!.toString('utf8')) as Array<{
      id: string;
    }>;
    expect(listing.map((a) => a.id).sort()).toEqual([kept.id, lost.id].sort());
  });
});
