import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { BlobStorage } from '../../src/infra/storage/blob-storage';
import { S3BlobStorage } from '../../src/infra/storage/s3-blob-storage';
import { AttachmentEntity } from '../../src/modules/guilds/attachments/attachment.entity';
import { AttachmentStore } from '../../src/modules/guilds/attachments/attachment-store';
import {
  AttachmentUploadsService,
  type UploadRef,
} from '../../src/modules/guilds/attachments/attachment-uploads.service';
import { createTestApp, http } from '../helpers/app';
import { pngImage, readStream } from '../helpers/attachments';
import { registerUser, type TestUser } from '../helpers/factories';
import { createGuild, type TestGuild } from '../helpers/guild-factories';
import { startS3, type TestS3 } from '../helpers/s3-server';

interface Upload {
  id: string | number;
  upload_url: string;
  upload_filename: string;
}

/**
 * S3_PRESIGNED_UPLOADS: the upload URL is a presigned PUT of the bucket itself (s3rver here), the
 * bytes never cross Parley, and the server checks the object when a message names the upload.
 */
describe('presigned upload URLs (S3_PRESIGNED_UPLOADS=true, on s3rver)', () => {
  let s3: TestS3;
  let app: ParleyApp;
  let owner: TestUser;
  let guild: TestGuild;
  /** The test's own client of the bucket (what a client might put there besides the URL). */
  let bucket: S3BlobStorage;

  beforeAll(async () => {
    s3 = await startS3();
    app = await createTestApp({
      env: { ...s3.env, S3_PRESIGNED_UPLOADS: 'true', ATTACHMENT_UPLOAD_TTL: '600' },
    });
    bucket = await S3BlobStorage.connect(s3.settings);
    owner = await registerUser(app);
    guild = await createGuild(app, owner.token);
  });
  afterAll(async () => {
    bucket?.onModuleDestroy();
    await app?.close();
    await s3?.close();
  });

  const askUrls = async (files: Array<{ filename: string; file_size: number }>) => {
    const res = await http(app)
      .post(`/v1/channels/${guild.channelId}/attachments`)
      .set('Authorization', owner.token)
      .send({ files: files.map((f, id) => ({ id, ...f })) });
    expect(res.status).toBe(200);
    return (res.body as { attachments: Upload[] }).attachments;
  };
  const idOf = (uploadFilename: string) =>
    app
      .get(DataSource)
      .getRepository(AttachmentEntity)
      .findOneByOrFail({ uploadFilename })
      .then((row) => row.id);
  const resolve = (refs: UploadRef[]) =>
    app
      .get(DataSource)
      .transaction((m) =>
        app.get(AttachmentUploadsService).resolveUploads(m, owner.userId, guild.channelId, refs),
      );

  it('hands out a presigned PUT of the blob key that binds Content-Length and expires with the upload', async () => {
    const [u] = await askUrls([{ filename: 'a.png', file_size: 1234 }]);
    const id = await idOf(u.upload_filename);
    const url = new URL(u.upload_url);
    expect(`${url.origin}${url.pathname}`).toBe(
      `${s3.endpoint}/${s3.bucket}/${AttachmentStore.blobKey(guild.channelId, id)}`,
    );
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(url.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toContain('content-length');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('takes a file PUT straight to the bucket: the message checks its size, sniffs its head, marks it stored', async () => {
    const image = pngImage(320, 240);
    const [u] = await askUrls([{ filename: 'photo.png', file_size: image.length }]);
    // Plain fetch, as a browser would: no credentials but the URL's.
    const put = await fetch(u.upload_url, {
      method: 'PUT',
      body: new Uint8Array(image),
      headers: { 'Content-Type': 'application/octet-stream' },
    });
    expect(put.status).toBe(200);
    const id = await idOf(u.upload_filename);

    const [stored] = await resolve([{ uploaded_filename: u.upload_filename }]);
    expect(stored).toEqual({
      id,
      filename: 'photo.png',
      content_type: 'image/png',
      size: image.length,
      width: 320,
      height: 240,
      flags: 0,
    });
    expect(
      await app.get(DataSource).getRepository(AttachmentEntity).findOneByOrFail({ id }),
    ).toMatchObject({ stored: true, size: String(image.length), contentType: 'image/png' });
    const blob = await app.get(BlobStorage).open(AttachmentStore.blobKey(guild.channelId, id));
    expect((await readStream(blob!.stream)).equals(image)).toBe(true);
  });

  it('refuses an upload whose object is missing or not of the declared size (left unstored)', async () => {
    const body = randomBytes(5000);
    const [missing, wrong] = await askUrls([
      { filename: 'missing.bin', file_size: body.length },
      { filename: 'wrong.bin', file_size: body.length },
    ]);
    const wrongId = await idOf(wrong.upload_filename);
    // What a store that does not enforce the signed length might let through.
    await bucket.put(AttachmentStore.blobKey(guild.channelId, wrongId), body.subarray(0, 4000));
    await expect(
      resolve([
        { uploaded_filename: missing.upload_filename },
        { uploaded_filename: wrong.upload_filename },
      ]),
    ).rejects.toMatchObject({
      status: 400,
      extra: {
        errors: [
          { path: 'attachments.0.uploaded_filename', code: 'ATTACHMENT_UPLOAD_INCOMPLETE' },
          { path: 'attachments.1.uploaded_filename', code: 'ATTACHMENT_UPLOAD_INCOMPLETE' },
        ],
      },
    });
    expect(
      await app.get(DataSource).getRepository(AttachmentEntity).findOneByOrFail({ id: wrongId }),
    ).toMatchObject({ stored: false });
  });

  it('cancels: the object goes, the row stays nameless until it expires (the URL cannot be taken back)', async () => {
    const body = Buffer.from('soon gone');
    const [u] = await askUrls([{ filename: 'a.txt', file_size: body.length }]);
    const id = await idOf(u.upload_filename);
    expect((await fetch(u.upload_url, { method: 'PUT', body: new Uint8Array(body) })).status).toBe(
      200,
    );
    const cancel = await http(app)
      .delete(`/v1/attachments/${u.upload_filename}`)
      .set('Authorization', owner.token);
    expect(cancel.status).toBe(204);
    expect(await bucket.sizeOf(AttachmentStore.blobKey(guild.channelId, id))).toBeNull();
    const row = await app.get(DataSource).getRepository(AttachmentEntity).findOneByOrFail({ id });
    expect(row).toMatchObject({ uploadFilename: null, stored: false, messageId: null });
    expect(row.expiresAt!.getTime()).toBeGreaterThan(Date.now());
    // Nothing can name it any more.
    await expect(resolve([{ uploaded_filename: u.upload_filename }])).rejects.toMatchObject({
      extra: {
        errors: [{ path: 'attachments.0.uploaded_filename', code: 'ATTACHMENT_UPLOAD_UNKNOWN' }],
      },
    });
    const again = await http(app)
      .delete(`/v1/attachments/${u.upload_filename}`)
      .set('Authorization', owner.token);
    expect(again.status).toBe(404);
  });
});
