import type { ParleyApp } from '../../src/app.setup';
import { S3BlobStorage } from '../../src/infra/storage/s3-blob-storage';
import { createAdminKey, type TestAdminKey } from '../helpers/admin';
import { createTestApp, fetchLink, http } from '../helpers/app';
import { registerUser } from '../helpers/factories';
import { createGuild, PNG_DATA_URI } from '../helpers/guild-factories';
import { startS3, type TestS3 } from '../helpers/s3-server';
import { createPostgresTestDatabase, type TestDatabase } from '../setup/database';

/**
 * Two instances, each with its own DATA_DIR, on one database and one S3 bucket: what one stores
 * the other serves and deletes. The database is their own: on the suites' shared one, an archive
 * job could be fetched by another suite's app (pg-boss), which keeps its blobs on local disk.
 */
describe('blobs shared by instances through S3', () => {
  let s3: TestS3;
  let bucket: S3BlobStorage;
  let a: ParleyApp;
  let b: ParleyApp;
  let root: TestAdminKey;
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createPostgresTestDatabase(process.env.PARLEY_TEST_DATABASE_URL!);
    s3 = await startS3();
    bucket = await S3BlobStorage.connect(s3.settings);
    [a, b] = await Promise.all([
      createTestApp({ env: { ...s3.env, DATABASE_URL: db.url } }),
      createTestApp({ env: { ...s3.env, DATABASE_URL: db.url } }),
    ]);
    root = await createAdminKey(a);
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    bucket?.onModuleDestroy();
    await s3?.close();
    await db?.drop();
  });

  it('serves an archive built by one instance through the signed link on the other', async () => {
    const user = await registerUser(a);
    const trigger = await http(a)
      .post('/v1/admin/archives/user')
      .set('Authorization', root.header)
      .send({ user_id: user.userId });
    expect(trigger.status).toBe(200);
    const archiveId = trigger.body.archive_id as string;
    const deadline = Date.now() + 30_000;
    let details;
    do {
      await new Promise((r) => setTimeout(r, 100));
      details = await http(a)
        .get(`/v1/admin/archives/user/${user.userId}/${archiveId}`)
        .set('Authorization', root.header);
      expect(details.status).toBe(200);
    } while (details.body.status !== 'completed' && Date.now() < deadline);
    expect(details.body).toMatchObject({
      status: 'completed',
      file_location: `archives/${archiveId}.zip`,
    });

    // In the bucket, not in either instance's DATA_DIR.
    const stored = await bucket.list('archives');
    const object = stored.find((o) => o.key === `archives/${archiveId}.zip`);
    expect(object?.size).toBe(details.body.file_size);

    const link = await http(a)
      .get(`/v1/admin/archives/user/${user.userId}/${archiveId}/download`)
      .set('Authorization', root.header);
    expect(link.status).toBe(200);
    const file = await fetchLink(b, link.body.download_url as string);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/zip');
    expect((file.body as Buffer).length).toBe(object!.size);
    // A zip: local file header magic.
    expect((file.body as Buffer).subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
  }, 60_000);

  it('purges on one instance the assets another stored, freeing their bytes in the bucket', async () => {
    const owner = await registerUser(b);
    const guild = await createGuild(b, owner.token);
    const icon = await http(b)
      .patch(`/v1/guilds/${guild.guildId}`)
      .set('Authorization', owner.token)
      .send({ icon: PNG_DATA_URI });
    expect(icon.status).toBe(200);
    const stored = await bucket.list(`assets/icons/${guild.guildId}`);
    expect(stored).toEqual([
      { key: `assets/icons/${guild.guildId}/${icon.body.icon}.png`, size: expect.any(Number) },
    ]);

    const purge = await http(a)
      .post('/v1/admin/assets/purge')
      .set('Authorization', root.header)
      .send({ guild_ids: [guild.guildId] });
    expect(purge.status).toBe(200);
    expect(purge.body).toEqual({
      results: [{ guild_id: guild.guildId, deleted: 1, bytes_freed: stored[0].size, errors: [] }],
    });
    expect(await bucket.list(`assets/icons/${guild.guildId}`)).toEqual([]);
  });
});
