import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { BlobStorage } from '../../src/infra/storage/blob-storage';
import { AttachmentEntity } from '../../src/modules/guilds/attachments/attachment.entity';
import { AttachmentStore } from '../../src/modules/guilds/attachments/attachment-store';
import {
  AttachmentUploadsService,
  type UploadRef,
} from '../../src/modules/guilds/attachments/attachment-uploads.service';
import { UploadLinks } from '../../src/modules/guilds/attachments/upload-links';
import { Permissions } from '../../src/modules/guilds/permissions';
import { createTestApp, fetchLink, http } from '../helpers/app';
import { pngImage, readStream } from '../helpers/attachments';
import { testBlobDir } from '../helpers/blob-dir';
import { registerUser, type TestUser } from '../helpers/factories';
import { addMember, createGuild, giveRole, type TestGuild } from '../helpers/guild-factories';
import { collect, sendWithheldBody, type Reply } from '../helpers/http-client';
import { createApplication, installBot } from '../helpers/oauth2-factories';
import { startS3, type TestS3 } from '../helpers/s3-server';

/** The largest upload the suite's apps take (ATTACHMENT_UPLOAD_MAX_BYTES). */
const MAX = 16 * 1024 * 1024;
const UUID_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\//;

const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

interface PutOptions {
  /** The body in one piece (with its Content-Length unless `headers` says otherwise)… */
  body?: Buffer;
  /** …or in pieces, chunked (no Content-Length), a few milliseconds apart. */
  chunks?: Buffer[];
  headers?: Record<string, string>;
}

/**
 * A PUT over a real socket. Resolves with the answer even when the server answers before the
 * body is all sent (it closes the connection then; a write error after the answer is expected).
 */
function put(port: number, path: string, options: PutOptions): Promise<Reply> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'PUT',
        path,
        agent: false,
        headers: {
          'Content-Type': 'application/octet-stream',
          ...(options.body ? { 'Content-Length': String(options.body.length) } : {}),
          ...options.headers,
        },
      },
      (res) => {
        answered = true;
        collect(res, resolve, reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`timeout: PUT ${path}`)));
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (options.body) {
      req.end(options.body);
      return;
    }
    const chunks = [...(options.chunks ?? [])];
    const next = () => {
      if (answered || req.destroyed) return;
      const chunk = chunks.shift();
      if (!chunk) {
        req.end();
        return;
      }
      req.write(chunk);
      setTimeout(next, 5);
    };
    next();
  });
}

/** Sends the first part of a declared body, then drops the connection. */
function putAndDisconnect(port: number, path: string, declared: number, part: Buffer) {
  return new Promise<void>((resolve) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'PUT',
      path,
      agent: false,
      headers: { 'Content-Length': String(declared) },
    });
    req.on('error', () => undefined);
    req.write(part, () => {
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
  });
}

async function listen(app: ParleyApp): Promise<number> {
  await app.listen(0, '127.0.0.1');
  return (app.getHttpServer().address() as { port: number }).port;
}

interface Upload {
  id: string | number;
  upload_url: string;
  upload_filename: string;
}

async function askUrls(
  app: ParleyApp,
  token: string,
  channelId: string,
  files: Array<{ id: string | number; filename: string; file_size: number }>,
): Promise<Upload[]> {
  const res = await http(app)
    .post(`/v1/channels/${channelId}/attachments`)
    .set('Authorization', token)
    .send({ files });
  expect(res.status).toBe(200);
  return (res.body as { attachments: Upload[] }).attachments;
}

const attachmentIdOf = (u: Upload) => new URL(u.upload_url).pathname.split('/').pop()!;

const rowOf = (app: ParleyApp, uploadFilename: string) =>
  app.get(DataSource).getRepository(AttachmentEntity).findOneBy({ uploadFilename });

/** What message creation gets for `refs` (the lead wires it into messages.service.ts). */
const resolve = (app: ParleyApp, userId: string, channelId: string, refs: UploadRef[]) =>
  app
    .get(DataSource)
    .transaction((m) =>
      app.get(AttachmentUploadsService).resolveUploads(m, userId, channelId, refs),
    );

/** The bytes stored for an attachment, or null. */
async function blobOf(app: ParleyApp, channelId: string, attachmentId: string) {
  const opened = await app.get(BlobStorage).open(AttachmentStore.blobKey(channelId, attachmentId));
  return opened ? readStream(opened.stream) : null;
}

/** Files (temp files of writes in flight included) of an attachment on the local disk store. */
function diskFilesOf(channelId: string, attachmentId: string): string[] {
  const folder = join(testBlobDir(process.env.PARLEY_TEST_DATABASE_URL!), 'attachments', channelId);
  if (!existsSync(folder)) return [];
  return readdirSync(folder).filter((f) => f.startsWith(attachmentId));
}

async function eventually(check: () => Promise<boolean> | boolean, ms = 3_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('upload URLs on local disk (Parley’s signed PUT route)', () => {
  let app: ParleyApp;
  let port: number;
  let owner: TestUser;
  let guild: TestGuild;

  const lines: string[] = [];

  beforeAll(async () => {
    app = await createTestApp({
      env: { ATTACHMENT_UPLOAD_MAX_BYTES: String(MAX), LOG_LEVEL: 'info' },
      logDestination: { write: (line: string) => void lines.push(line) },
    });
    port = await listen(app);
    owner = await registerUser(app);
    guild = await createGuild(app, owner.token);
  });
  afterAll(() => app.close());

  it('takes a file through POST → PUT → resolveUploads: stored, sniffed, byte for byte', async () => {
    const image = pngImage(300, 200);
    const notes = Buffer.from('plain notes\n');
    const [a, b] = await askUrls(app, owner.token, guild.channelId, [
      { id: '0', filename: 'holiday.png', file_size: image.length },
      { id: 7, filename: 'dir/notes.txt', file_size: notes.length },
    ]);
    // Discord's shape: the client's ids echoed as sent, a URL and a name per file.
    expect(a).toEqual({
      id: '0',
      upload_url: expect.stringMatching(
        /^http:\/\/parley\.test\/v1\/attachments\/uploads\/\d+\?expires=\d+&signature=[\w-]+$/,
      ),
      upload_filename: expect.stringMatching(UUID_NAME),
    });
    expect(a.upload_filename.endsWith('/holiday.png')).toBe(true);
    expect(b.id).toBe(7);
    // Path parts are dropped from the name.
    expect(b.upload_filename.endsWith('/notes.txt')).toBe(true);
    const row = await rowOf(app, a.upload_filename);
    expect(row).toMatchObject({
      channelId: guild.channelId,
      guildId: guild.guildId,
      uploaderId: owner.userId,
      filename: 'holiday.png',
      declaredSize: String(image.length),
      stored: false,
      messageId: null,
    });
    expect(row!.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 3_500_000);

    // Not sent yet: a message cannot take it.
    await expect(
      resolve(app, owner.userId, guild.channelId, [{ uploaded_filename: a.upload_filename }]),
    ).rejects.toMatchObject({
      status: 400,
      extra: {
        errors: [{ path: 'attachments.0.uploaded_filename', code: 'ATTACHMENT_UPLOAD_INCOMPLETE' }],
      },
    });

    const sent = await put(port, pathOf(a.upload_url), {
      body: image,
      headers: { 'Content-Type': 'text/html' },
    });
    expect(sent.status).toBe(200);
    expect(sent.text).toBe('');
    const sentNotes = await put(port, pathOf(b.upload_url), { chunks: [notes] });
    expect(sentNotes.status).toBe(200);

    const id = attachmentIdOf(a);
    expect(await blobOf(app, guild.channelId, id)).toEqual(image);
    // The client's Content-Type is not believed: the type is sniffed.
    const stored = await resolve(app, owner.userId, guild.channelId, [
      { id: '0', uploaded_filename: a.upload_filename },
      {
        id: '1',
        uploaded_filename: b.upload_filename,
        filename: 'SPOILER_notes.txt',
        description: 'what we said',
      },
    ]);
    expect(stored).toEqual([
      {
        id,
        filename: 'holiday.png',
        content_type: 'image/png',
        size: image.length,
        width: 300,
        height: 200,
        flags: 0,
      },
      {
        id: attachmentIdOf(b),
        filename: 'SPOILER_notes.txt',
        description: 'what we said',
        content_type: 'text/plain; charset=utf-8',
        size: notes.length,
        width: null,
        height: null,
        flags: 8,
      },
    ]);
    expect(await rowOf(app, a.upload_filename)).toMatchObject({
      stored: true,
      size: String(image.length),
      contentType: 'image/png',
      width: 300,
      height: 200,
    });

    // Received once: a second PUT is refused before its body is read.
    const again = await sendWithheldBody({
      port,
      method: 'PUT',
      path: pathOf(a.upload_url),
      declaredLength: image.length,
      firstChunk: image.subarray(0, 1024),
    });
    expect(again.status).toBe(409);
    expect(again.json).toEqual({
      code: 'CONFLICT',
      message: 'This upload has already been received.',
    });
    expect(await blobOf(app, guild.channelId, id)).toEqual(image);
  });

  it('stores the body as it is whatever its Content-Type says (JSON, a form): nothing parses it', async () => {
    const json = Buffer.from('{"not": "parsed", "broken": ');
    const form = Buffer.from('a=1&b=2&a[b]=3');
    const [j, f] = await askUrls(app, owner.token, guild.channelId, [
      { id: 0, filename: 'data.json', file_size: json.length },
      { id: 1, filename: 'form.txt', file_size: form.length },
    ]);
    const sentJson = await put(port, pathOf(j.upload_url), {
      body: json,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(sentJson.status).toBe(200);
    const sentForm = await put(port, pathOf(f.upload_url), {
      body: form,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(sentForm.status).toBe(200);
    expect(await blobOf(app, guild.channelId, attachmentIdOf(j))).toEqual(json);
    expect(await blobOf(app, guild.channelId, attachmentIdOf(f))).toEqual(form);
  });

  it('never logs an upload URL’s signature', async () => {
    const body = Buffer.from('logged?');
    const [u] = await askUrls(app, owner.token, guild.channelId, [
      { id: 0, filename: 'a.txt', file_size: body.length },
    ]);
    const signature = new URL(u.upload_url).searchParams.get('signature')!;
    expect((await put(port, pathOf(u.upload_url), { body })).status).toBe(200);
    const tampered = `${pathOf(u.upload_url)}x`;
    expect((await put(port, tampered, { body })).status).toBe(403);
    await eventually(
      () =>
        lines.filter((l) => l.includes(`/v1/attachments/uploads/${attachmentIdOf(u)}`)).length >= 2,
    );
    expect(lines.filter((l) => l.includes(signature.slice(0, 20)))).toEqual([]);
    // Nor the name of a file (the user's content) on the cancel routes (no path value but ids
    // and the routes' own words is logged).
    const [named] = await askUrls(app, owner.token, guild.channelId, [
      { id: 0, filename: 'private-name-1.txt', file_size: 1 },
      { id: 1, filename: 'private-name-2.txt', file_size: 1 },
    ]);
    const [, escaped] = await askUrls(app, owner.token, guild.channelId, [
      { id: 0, filename: 'x.txt', file_size: 1 },
      { id: 1, filename: 'private-name-3.txt', file_size: 1 },
    ]);
    for (const path of [named.upload_filename, encodeURIComponent(escaped.upload_filename)]) {
      const res = await http(app)
        .delete(`/v1/attachments/${path}`)
        .set('Authorization', owner.token);
      expect(res.status).toBe(204);
    }
    await eventually(() => lines.filter((l) => l.includes('DELETE')).length >= 2);
    expect(lines.filter((l) => l.includes('private-name'))).toEqual([]);
  });

  it('takes an empty file and a file of several megabytes', async () => {
    const big = randomBytes(3 * 1024 * 1024 + 17);
    const [empty, large] = await askUrls(app, owner.token, guild.channelId, [
      { id: 0, filename: 'empty.bin', file_size: 0 },
      { id: 1, filename: 'large.bin', file_size: big.length },
    ]);
    expect((await put(port, pathOf(empty.upload_url), { body: Buffer.alloc(0) })).status).toBe(200);
    expect((await put(port, pathOf(large.upload_url), { body: big })).status).toBe(200);
    const [e, l] = await resolve(app, owner.userId, guild.channelId, [
      { uploaded_filename: empty.upload_filename },
      { uploaded_filename: large.upload_filename },
    ]);
    expect(e).toMatchObject({ size: 0, content_type: 'application/octet-stream' });
    expect(l).toMatchObject({ size: big.length, content_type: 'application/octet-stream' });
    expect((await blobOf(app, guild.channelId, attachmentIdOf(large)))!.equals(big)).toBe(true);
  });

  it('takes a bot with ATTACH_FILES as a user: its uploads are its own', async () => {
    const g = await createGuild(app, owner.token);
    const client = await createApplication(app, owner);
    await installBot(
      app,
      owner,
      client,
      g.guildId,
      String(Permissions.VIEW_CHANNEL | Permissions.SEND_MESSAGES | Permissions.ATTACH_FILES),
    );
    const bot = `Bot ${client.botToken}`;
    const body = Buffer.from('from a bot');
    const [u] = await askUrls(app, bot, g.channelId, [
      { id: 0, filename: 'bot.txt', file_size: body.length },
    ]);
    expect(await rowOf(app, u.upload_filename)).toMatchObject({ uploaderId: client.botUserId });
    expect((await put(port, pathOf(u.upload_url), { body })).status).toBe(200);
    const [stored] = await resolve(app, client.botUserId, g.channelId, [
      { uploaded_filename: u.upload_filename },
    ]);
    expect(stored).toMatchObject({ filename: 'bot.txt', size: body.length });
    const cancel = await http(app)
      .delete(`/v1/attachments/${u.upload_filename}`)
      .set('Authorization', bot);
    expect(cancel.status).toBe(204);
  });

  it('answers 401 without a credential on the routes that take one', async () => {
    const create = await http(app)
      .post(`/v1/channels/${guild.channelId}/attachments`)
      .send({ files: [{ id: 0, filename: 'a.txt', file_size: 1 }] });
    expect(create.status).toBe(401);
    expect(create.body).toEqual({ code: 'UNAUTHORIZED', message: expect.any(String) });
    const [u] = await askUrls(app, owner.token, guild.channelId, [
      { id: 0, filename: 'a.txt', file_size: 1 },
    ]);
    const cancel = await http(app).delete(`/v1/attachments/${u.upload_filename}`);
    expect(cancel.status).toBe(401);
    expect(cancel.body).toEqual({ code: 'UNAUTHORIZED', message: expect.any(String) });
    expect(await rowOf(app, u.upload_filename)).not.toBeNull();
  });

  it('needs VIEW_CHANNEL, SEND_MESSAGES and ATTACH_FILES in the channel (403), and a channel (404)', async () => {
    const g = await createGuild(app, owner.token);
    const member = await registerUser(app);
    await addMember(app, g.guildId, member.userId);
    const setEveryone = async (permissions: bigint) => {
      const res = await http(app)
        .patch(`/v1/guilds/${g.guildId}/roles/${g.guildId}`)
        .set('Authorization', owner.token)
        .send({ permissions: permissions.toString() });
      expect(res.status).toBe(200);
    };
    const ask = () =>
      http(app)
        .post(`/v1/channels/${g.channelId}/attachments`)
        .set('Authorization', member.token)
        .send({ files: [{ id: 0, filename: 'a.png', file_size: 10 }] });
    const countRows = () =>
      app.get(DataSource).getRepository(AttachmentEntity).countBy({ channelId: g.channelId });

    await setEveryone(Permissions.VIEW_CHANNEL | Permissions.SEND_MESSAGES);
    const noAttach = await ask();
    expect(noAttach.status).toBe(403);
    expect(noAttach.body).toEqual({ code: 'MISSING_PERMISSIONS', message: expect.any(String) });

    await setEveryone(Permissions.VIEW_CHANNEL);
    await giveRole(app, g.guildId, member.userId, Permissions.ATTACH_FILES);
    const noSend = await ask();
    expect(noSend.status).toBe(403);
    expect(noSend.body).toEqual({ code: 'MISSING_PERMISSIONS', message: expect.any(String) });
    expect(await countRows()).toBe(0);

    await setEveryone(Permissions.VIEW_CHANNEL | Permissions.SEND_MESSAGES);
    expect((await ask()).status).toBe(200);
    expect(await countRows()).toBe(1);

    const stranger = await registerUser(app);
    const notMember = await http(app)
      .post(`/v1/channels/${g.channelId}/attachments`)
      .set('Authorization', stranger.token)
      .send({ files: [{ id: 0, filename: 'a.png', file_size: 10 }] });
    expect(notMember.status).toBe(404);
    expect(notMember.body).toEqual({ code: 'UNKNOWN_CHANNEL', message: expect.any(String) });
  });

  it('refuses a file over ATTACHMENT_UPLOAD_MAX_BYTES with 413 (40005 on Discord’s paths), making nothing', async () => {
    const g = await createGuild(app, owner.token);
    const files = [
      { id: 0, filename: 'ok.bin', file_size: 10 },
      { id: 1, filename: 'huge.bin', file_size: MAX + 1 },
    ];
    const res = await http(app)
      .post(`/v1/channels/${g.channelId}/attachments`)
      .set('Authorization', owner.token)
      .send({ files });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      message: `A file may be at most ${MAX} bytes.`,
    });
    const discord = await http(app)
      .post(`/api/v10/channels/${g.channelId}/attachments`)
      .set('Authorization', owner.token)
      .send({ files });
    expect(discord.status).toBe(413);
    expect(discord.body).toMatchObject({ code: 40005 });
    expect(
      await app.get(DataSource).getRepository(AttachmentEntity).countBy({ channelId: g.channelId }),
    ).toBe(0);
    // Exactly the limit is fine.
    const [atLimit] = await askUrls(app, owner.token, g.channelId, [
      { id: 0, filename: 'max.bin', file_size: MAX },
    ]);
    expect(atLimit.upload_filename).toMatch(UUID_NAME);
  });

  it('answers 400 field errors for 11 files, none, and malformed entries', async () => {
    const ask = (body: unknown) =>
      http(app)
        .post(`/v1/channels/${guild.channelId}/attachments`)
        .set('Authorization', owner.token)
        .send(body as object);
    const eleven = Array.from({ length: 11 }, (_, i) => ({
      id: i,
      filename: `f${i}.txt`,
      file_size: 1,
    }));
    const tooMany = await ask({ files: eleven });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({
      code: 'INVALID_FORM_BODY',
      message: 'Invalid form body.',
      errors: [{ path: 'files', code: 'BASE_TYPE_MAX_LENGTH', message: expect.any(String) }],
    });
    const none = await ask({ files: [] });
    expect(none.status).toBe(400);
    expect(none.body.errors).toEqual([
      { path: 'files', code: 'BASE_TYPE_MIN_LENGTH', message: expect.any(String) },
    ]);
    const bad = await ask({
      files: [
        { id: '', filename: 'a', file_size: 1 },
        { id: 1, filename: '', file_size: -1 },
        { id: 2, filename: 'x'.repeat(1025), file_size: 1.5 },
      ],
    });
    expect(bad.status).toBe(400);
    const codes = (bad.body.errors as Array<{ path: string; code: string }>).map(
      (e) => `${e.path}:${e.code}`,
    );
    expect(codes.sort()).toEqual(
      [
        'files.0.id:BASE_TYPE_INVALID',
        'files.1.filename:BASE_TYPE_MIN_LENGTH',
        'files.1.file_size:NUMBER_TYPE_MIN',
        'files.2.filename:BASE_TYPE_MAX_LENGTH',
        'files.2.file_size:BASE_TYPE_INTEGER',
      ].sort(),
    );
  });

  it('refuses a tampered, foreign or expired upload URL with 403 before reading the body', async () => {
    const body = randomBytes(2048);
    const [u] = await askUrls(app, owner.token, guild.channelId, [
      { id: 0, filename: 'a.bin', file_size: body.length },
    ]);
    const id = attachmentIdOf(u);
    const url = new URL(u.upload_url);
    const signature = url.searchParams.get('signature')!;
    const [other] = await askUrls(app, owner.token, guild.channelId, [
      { id: 0, filename: 'b.bin', file_size: body.length },
    ]);
    const expired = app.get(UploadLinks).url(id, new Date(Date.now() - 1_000));
    const paths = [
      `${url.pathname}?expires=${url.searchParams.get('expires')}&signature=${signature.slice(1)}x`,
      `${url.pathname}?expires=${Number(url.searchParams.get('expires')) + 1}&signature=${signature}`,
      // Another upload's signature on this one.
      `${url.pathname}${new URL(other.upload_url).search}`,
      url.pathname,
      pathOf(expired),
      `/v1/attachments/uploads/not-an-id${url.search}`,
    ];
    for (const path of paths) {
      const res = await sendWithheldBody({
        port,
        method: 'PUT',
        path,
        declaredLength: body.length,
        firstChunk: body.subarray(0, 100),
      });
      expect({ path, status: res.status, body: res.json }).toEqual({
        path,
        status: 403,
        body: { code: 'ACCESS_DENIED', message: 'This upload URL is invalid or has expired.' },
      });
      expect(res.headers.connection).toBe('close');
    }
    // An upload whose row expired (the sweep has not run yet), with a URL still signed as valid.
    await app
      .get(DataSource)
      .getRepository(AttachmentEntity)
      .update({ id }, { expiresAt: new Date(Date.now() - 1_000) });
    const late = await put(port, pathOf(u.upload_url), { body });
    expect(late.status).toBe(403);
    expect(late.json).toEqual({
      code: 'ACCESS_DENIED',
      message: 'This upload URL is invalid or has expired.',
    });
    expect(await blobOf(app, guild.channelId, id)).toBeNull();
    await expect(
      resolve(app, owner.userId, guild.channelId, [{ uploaded_filename: u.upload_filename }]),
    ).rejects.toMatchObject({
      extra: {
        errors: [{ path: 'attachments.0.uploaded_filename', code: 'ATTACHMENT_UPLOAD_UNKNOWN' }],
      },
    });
  });

  it('refuses a Content-Length other than the declared size before reading, then takes the right one', async () => {
    const body = randomBytes(4096);
    const [u] = await askUrls(app, owner.token, guild.channelId, [
      { id: 0, filename: 'a.bin', file_size: body.length },
    ]);
    const id = attachmentIdOf(u);
    const larger = await sendWithheldBody({
      port,
      method: 'PUT',
      path: pathOf(u.upload_url),
      declaredLength: body.length + 1,
      firstChunk: body.subarray(0, 100),
    });
    expect(larger.status).toBe(413);
    expect(larger.json).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      message: `Content-Length must be the file_size the upload URL was asked for (${body.length}).`,
    });
    expect(larger.headers.connection).toBe('close');
    const smaller = await put(port, pathOf(u.upload_url), { body: body.subarray(0, 4000) });
    expect(smaller.status).toBe(400);
    expect(smaller.json).toEqual({
      code: 'BAD_REQUEST',
      message: `Content-Length must be the file_size the upload URL was asked for (${body.length}).`,
    });
    const encoded = await put(port, pathOf(u.upload_url), {
      body,
      headers: { 'Content-Encoding': 'gzip' },
    });
    expect(encoded.status).toBe(415);
    expect(encoded.json).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(diskFilesOf(guild.channelId, id)).toEqual([]);
    expect(await rowOf(app, u.upload_filename)).toMatchObject({ stored: false });

    expect((await put(port, pathOf(u.upload_url), { body })).status).toBe(200);
    expect(await blobOf(app, guild.channelId, id)).toEqual(body);
  });

  it('cuts a chunked body off past the declared size (413) and refuses one that ends short (400), keeping nothing', async () => {
    const body = randomBytes(64 * 1024);
    const [u] = await askUrls(app, owner.token, guild.channelId, [
      { id: 0, filename: 'a.bin', file_size: body.length },
    ]);
    const id = attachmentIdOf(u);
    // 16 KiB pieces: the fifth carries the body past its declared size; more follow.
    const pieces = Array.from({ length: 8 }, () => randomBytes(16 * 1024));
    const over = await put(port, pathOf(u.upload_url), { chunks: pieces });
    expect(over.status).toBe(413);
    expect(over.json).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) });
    expect(over.headers.connection).toBe('close');
    expect(diskFilesOf(guild.channelId, id)).toEqual([]);

    const short = await put(port, pathOf(u.upload_url), {
      chunks: [body.subarray(0, 30_000), body.subarray(30_000, 60_000)],
    });
    expect(short.status).toBe(400);
    expect(short.json).toEqual({
      code: 'BAD_REQUEST',
      message: `The body ended after 60000 of the ${body.length} bytes declared.`,
    });
    expect(diskFilesOf(guild.channelId, id)).toEqual([]);
    expect(await rowOf(app, u.upload_filename)).toMatchObject({ stored: false });

    // The upload is still open: the right bytes, chunked, are taken.
    const right = await put(port, pathOf(u.upload_url), {
      chunks: [body.subarray(0, 40_000), body.subarray(40_000)],
    });
    expect(right.status).toBe(200);
    expect(await blobOf(app, guild.channelId, id)).toEqual(body);
  });

  it('keeps nothing from a client that disconnects mid-upload, and takes the file again after', async () => {
    const body = randomBytes(256 * 1024);
    const [u] = await askUrls(app, owner.token, guild.channelId, [
      { id: 0, filename: 'a.bin', file_size: body.length },
    ]);
    const id = attachmentIdOf(u);
    await putAndDisconnect(port, pathOf(u.upload_url), body.length, body.subarray(0, 100_000));
    await eventually(() => diskFilesOf(guild.channelId, id).length === 0);
    expect(await rowOf(app, u.upload_filename)).toMatchObject({ stored: false });
    // Not "already being received": the failed PUT let go of the upload.
    expect((await put(port, pathOf(u.upload_url), { body })).status).toBe(200);
    expect(await blobOf(app, guild.channelId, id)).toEqual(body);
  });

  it('cancels an upload (204), with its bytes; then the URL, the name and a second cancel are refused', async () => {
    const body = Buffer.from('to be cancelled');
    const [sent, unsent] = await askUrls(app, owner.token, guild.channelId, [
      { id: 0, filename: 'a.txt', file_size: body.length },
      { id: 1, filename: 'b.txt', file_size: body.length },
    ]);
    expect((await put(port, pathOf(sent.upload_url), { body })).status).toBe(200);
    const id = attachmentIdOf(sent);
    expect(await blobOf(app, guild.channelId, id)).toEqual(body);

    // Only the uploader.
    const other = await registerUser(app);
    await addMember(app, guild.guildId, other.userId);
    const foreign = await http(app)
      .delete(`/v1/attachments/${sent.upload_filename}`)
      .set('Authorization', other.token);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ code: 'UNKNOWN_ATTACHMENT', message: 'Unknown upload.' });

    const cancel = await http(app)
      .delete(`/v1/attachments/${sent.upload_filename}`)
      .set('Authorization', owner.token);
    expect(cancel.status).toBe(204);
    expect(cancel.text).toBe('');
    expect(await rowOf(app, sent.upload_filename)).toBeNull();
    expect(await blobOf(app, guild.channelId, id)).toBeNull();

    const again = await http(app)
      .delete(`/v1/attachments/${sent.upload_filename}`)
      .set('Authorization', owner.token);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ code: 'UNKNOWN_ATTACHMENT', message: 'Unknown upload.' });
    const late = await put(port, pathOf(sent.upload_url), { body });
    expect(late.status).toBe(404);
    expect(late.json).toEqual({
      code: 'UNKNOWN_ATTACHMENT',
      message: 'This upload was cancelled.',
    });
    expect(await blobOf(app, guild.channelId, id)).toBeNull();

    // Discord's path, the name's slash escaped as one segment.
    const escaped = await http(app)
      .delete(`/api/v10/attachments/${encodeURIComponent(unsent.upload_filename)}`)
      .set('Authorization', owner.token);
    expect(escaped.status).toBe(204);
    expect(await rowOf(app, unsent.upload_filename)).toBeNull();
    await expect(
      resolve(app, owner.userId, guild.channelId, [
        { uploaded_filename: sent.upload_filename },
        { uploaded_filename: unsent.upload_filename },
      ]),
    ).rejects.toMatchObject({ status: 400 });

    const unknown = await http(app)
      .delete('/v1/attachments/not-a-uuid/a.txt')
      .set('Authorization', owner.token);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 'UNKNOWN_ATTACHMENT', message: 'Unknown upload.' });
  });

  it('routes names with spaces, percent signs, hashes and accents to the cancel route', async () => {
    const names = ['my file #1 100%.txt', 'résumé ü 履歴.pdf', 'a+b=c;d,e&f.txt'];
    const uploads = await askUrls(
      app,
      owner.token,
      guild.channelId,
      names.map((filename, id) => ({ id, filename, file_size: 1 })),
    );
    for (const [i, u] of uploads.entries()) {
      expect(u.upload_filename.endsWith(`/${names[i]}`)).toBe(true);
      const [uuid, name] = u.upload_filename.split('/');
      const res = await http(app)
        .delete(`/v1/attachments/${uuid}/${encodeURIComponent(name)}`)
        .set('Authorization', owner.token);
      expect({ name, status: res.status }).toEqual({ name, status: 204 });
      expect(await rowOf(app, u.upload_filename)).toBeNull();
    }
  });

  it('gives a message only the caller’s own, complete, unexpired uploads of its channel, each once', async () => {
    const body = Buffer.from('hello');
    const other = await registerUser(app);
    await addMember(app, guild.guildId, other.userId);
    const otherChannel = await createGuild(app, owner.token);
    const [mine, incomplete, expiring] = await askUrls(app, owner.token, guild.channelId, [
      { id: 0, filename: 'a.txt', file_size: body.length },
      { id: 1, filename: 'b.txt', file_size: body.length },
      { id: 2, filename: 'c.txt', file_size: body.length },
    ]);
    const [elsewhere] = await askUrls(app, owner.token, otherChannel.channelId, [
      { id: 0, filename: 'd.txt', file_size: body.length },
    ]);
    for (const u of [mine, expiring, elsewhere]) {
      expect((await put(port, pathOf(u.upload_url), { body })).status).toBe(200);
    }
    await app
      .get(DataSource)
      .getRepository(AttachmentEntity)
      .update({ id: attachmentIdOf(expiring) }, { expiresAt: new Date(Date.now() - 1) });

    await expect(
      resolve(app, owner.userId, guild.channelId, [
        { uploaded_filename: mine.upload_filename },
        { uploaded_filename: mine.upload_filename },
        { uploaded_filename: incomplete.upload_filename },
        { uploaded_filename: expiring.upload_filename },
        { uploaded_filename: elsewhere.upload_filename },
        { uploaded_filename: '00000000-0000-4000-8000-000000000000/nope.txt' },
      ]),
    ).rejects.toMatchObject({
      status: 400,
      extra: {
        errors: [
          { path: 'attachments.1.uploaded_filename', code: 'ATTACHMENT_UPLOAD_UNKNOWN' },
          { path: 'attachments.2.uploaded_filename', code: 'ATTACHMENT_UPLOAD_INCOMPLETE' },
          { path: 'attachments.3.uploaded_filename', code: 'ATTACHMENT_UPLOAD_UNKNOWN' },
          { path: 'attachments.4.uploaded_filename', code: 'ATTACHMENT_UPLOAD_UNKNOWN' },
          { path: 'attachments.5.uploaded_filename', code: 'ATTACHMENT_UPLOAD_UNKNOWN' },
        ],
      },
    });
    // Someone else cannot use it.
    await expect(
      resolve(app, other.userId, guild.channelId, [{ uploaded_filename: mine.upload_filename }]),
    ).rejects.toMatchObject({
      extra: {
        errors: [{ path: 'attachments.0.uploaded_filename', code: 'ATTACHMENT_UPLOAD_UNKNOWN' }],
      },
    });
    // Once a message holds it, it is not an upload any more: not again, not cancellable.
    const message = await http(app)
      .post(`/v1/channels/${guild.channelId}/messages`)
      .set('Authorization', owner.token)
      .send({ content: 'with a file' });
    expect(message.status).toBe(201);
    await app.get(DataSource).transaction(async (m) => {
      const files = await app
        .get(AttachmentUploadsService)
        .resolveUploads(m, owner.userId, guild.channelId, [
          { uploaded_filename: mine.upload_filename, filename: 'renamed.txt' },
        ]);
      await app.get(AttachmentStore).attach(m, message.body.id as string, files);
    });
    expect(await rowOf(app, mine.upload_filename)).toMatchObject({
      messageId: message.body.id,
      filename: 'renamed.txt',
      expiresAt: null,
    });
    await expect(
      resolve(app, owner.userId, guild.channelId, [{ uploaded_filename: mine.upload_filename }]),
    ).rejects.toMatchObject({
      extra: {
        errors: [{ path: 'attachments.0.uploaded_filename', code: 'ATTACHMENT_UPLOAD_UNKNOWN' }],
      },
    });
    const cancel = await http(app)
      .delete(`/v1/attachments/${mine.upload_filename}`)
      .set('Authorization', owner.token);
    expect(cancel.status).toBe(404);
    expect(await blobOf(app, guild.channelId, attachmentIdOf(mine))).toEqual(body);
    const late = await put(port, pathOf(mine.upload_url), { body });
    expect(late.status).toBe(409);
  });
});

describe('upload URLs across two instances', () => {
  let a: ParleyApp;
  let b: ParleyApp;
  let portA: number;
  let portB: number;

  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp();
    portA = await listen(a);
    portB = await listen(b);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('takes a file uploaded through A on B, and the other way round', async () => {
    const owner = await registerUser(a);
    const guild = await createGuild(a, owner.token);
    const first = pngImage(64, 48);
    const second = randomBytes(100_000);
    const [u1, u2] = await askUrls(a, owner.token, guild.channelId, [
      { id: 0, filename: 'first.png', file_size: first.length },
      { id: 1, filename: 'second.bin', file_size: second.length },
    ]);
    // One through A, the other — a URL A handed out — through B.
    expect((await put(portA, pathOf(u1.upload_url), { body: first })).status).toBe(200);
    expect((await put(portB, pathOf(u2.upload_url), { body: second })).status).toBe(200);

    // The message is created on B (Discord's form: `uploaded_filename` names each upload).
    const posted = await http(b)
      .post(`/v1/channels/${guild.channelId}/messages`)
      .set('Authorization', owner.token)
      .send({
        content: 'two uploads',
        attachments: [
          { id: 0, filename: 'first.png', uploaded_filename: u1.upload_filename },
          { id: 1, uploaded_filename: u2.upload_filename, description: 'noise' },
        ],
      });
    expect(posted.status).toBe(201);
    expect(posted.body.attachments).toEqual([
      expect.objectContaining({
        id: attachmentIdOf(u1),
        content_type: 'image/png',
        width: 64,
        height: 48,
      }),
      expect.objectContaining({
        filename: 'second.bin',
        size: second.length,
        description: 'noise',
      }),
    ]);
    // Served by either instance, byte for byte.
    expect((await fetchLink(a, posted.body.attachments[0].url)).body).toEqual(first);
    expect((await fetchLink(b, posted.body.attachments[1].url)).body).toEqual(second);
    // An upload goes to one message only.
    const again = await http(a)
      .post(`/v1/channels/${guild.channelId}/messages`)
      .set('Authorization', owner.token)
      .send({ attachments: [{ id: 0, uploaded_filename: u1.upload_filename }] });
    expect(again.status).toBe(400);
    expect(again.body.errors[0]).toMatchObject({ path: 'attachments.0.uploaded_filename' });
    expect(await blobOf(b, guild.channelId, attachmentIdOf(u1))).toEqual(first);
    expect(await blobOf(a, guild.channelId, attachmentIdOf(u2))).toEqual(second);
  });
});

describe('upload URLs on S3 (s3rver), through Parley’s PUT route', () => {
  let s3: TestS3;
  let app: ParleyApp;
  let port: number;
  let owner: TestUser;
  let guild: TestGuild;

  beforeAll(async () => {
    s3 = await startS3();
    app = await createTestApp({ env: { ...s3.env, ATTACHMENT_UPLOAD_MAX_BYTES: String(MAX) } });
    port = await listen(app);
    owner = await registerUser(app);
    guild = await createGuild(app, owner.token);
  });
  afterAll(async () => {
    await app?.close();
    await s3?.close();
  });

  it('streams a file of several parts into the bucket, sniffed and byte for byte', async () => {
    // Over lib-storage's 8 MiB part: a multipart upload.
    const image = Buffer.concat([pngImage(100, 80), randomBytes(9 * 1024 * 1024)]);
    const [u] = await askUrls(app, owner.token, guild.channelId, [
      { id: 0, filename: 'big.png', file_size: image.length },
    ]);
    expect(u.upload_url).toMatch(/^http:\/\/parley\.test\/v1\/attachments\/uploads\//);
    expect((await put(port, pathOf(u.upload_url), { body: image })).status).toBe(200);
    const posted = await http(app)
      .post(`/v1/channels/${guild.channelId}/messages`)
      .set('Authorization', owner.token)
      .send({ attachments: [{ id: 0, uploaded_filename: u.upload_filename }] });
    expect(posted.status).toBe(201);
    expect(posted.body.attachments[0]).toMatchObject({
      filename: 'big.png',
      content_type: 'image/png',
      size: image.length,
      width: 100,
      height: 80,
    });
    expect((await blobOf(app, guild.channelId, attachmentIdOf(u)))!.equals(image)).toBe(true);
    // Served from the bucket through the signed link.
    const served = await fetchLink(app, posted.body.attachments[0].url);
    expect(served.status).toBe(200);
    expect((served.body as Buffer).equals(image)).toBe(true);
  });

  it('leaves no object after a chunked body past the declared size, and cancels with the object', async () => {
    const body = randomBytes(40_000);
    const [u] = await askUrls(app, owner.token, guild.channelId, [
      { id: 0, filename: 'a.bin', file_size: body.length },
    ]);
    const id = attachmentIdOf(u);
    const over = await put(port, pathOf(u.upload_url), {
      chunks: [body, randomBytes(10_000), randomBytes(10_000)],
    });
    expect(over.status).toBe(413);
    expect(over.json).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(await blobOf(app, guild.channelId, id)).toBeNull();

    expect((await put(port, pathOf(u.upload_url), { body })).status).toBe(200);
    expect(await blobOf(app, guild.channelId, id)).toEqual(body);
    const cancel = await http(app)
      .delete(`/v1/attachments/${u.upload_filename}`)
      .set('Authorization', owner.token);
    expect(cancel.status).toBe(204);
    expect(await blobOf(app, guild.channelId, id)).toBeNull();
    expect(await rowOf(app, u.upload_filename)).toBeNull();
  });
});
