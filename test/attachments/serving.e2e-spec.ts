import { randomBytes } from 'node:crypto';
import { readdirSync, readlinkSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { Readable } from 'node:stream';
import { deflateSync } from 'node:zlib';
import { DataSource } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { BlobStorage, type LocalBlobStorage } from '../../src/infra/storage/blob-storage';
import { AttachmentLinks } from '../../src/modules/guilds/attachments/attachment-links';
import { AttachmentStore } from '../../src/modules/guilds/attachments/attachment-store';
import type { AttachmentResponse } from '../../src/modules/guilds/attachments/attachment.response';
import { Permissions } from '../../src/modules/guilds/permissions';
import { createTestApp, fetchLink, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { addMember, createGuild, type TestGuild } from '../helpers/guild-factories';
import { startS3, type TestS3 } from '../helpers/s3-server';

const TTL_SECONDS = 86_400;
const CSP = "default-src 'none'; sandbox";

/** CRC-32 (PNG chunks). */
function crc32(data: Buffer): number {
  let c = ~0;
  for (const byte of data) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** A valid PNG of `width`×`height` grey pixels. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const rows = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0; // filter: none
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

interface Posted {
  messageId: string;
  /** The attachment as the message shows it (with its signed link). */
  attachment: AttachmentResponse;
}

/**
 * Posts a message with one file (Discord's multipart form; the name given in `payload_json`, as
 * discord.js sends it) and returns its attachment as the message shows it.
 */
async function postFile(
  app: ParleyApp,
  user: TestUser,
  g: TestGuild,
  filename: string,
  bytes: Buffer,
): Promise<Posted> {
  const res = await http(app)
    .post(`/v1/channels/${g.channelId}/messages`)
    .set('Authorization', user.token)
    .field(
      'payload_json',
      JSON.stringify({ content: 'here is a file', attachments: [{ id: 0, filename }] }),
    )
    .attach('files[0]', bytes, { filename: 'upload.bin', contentType: 'application/octet-stream' });
  if (res.status !== 201) throw new Error(`post file: ${res.status} ${JSON.stringify(res.body)}`);
  return { messageId: res.body.id as string, attachment: res.body.attachments[0] };
}

/** The path and query of a link (supertest takes paths). */
const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

/** The same link with one query parameter changed. */
function withQuery(url: string, name: string, value: string | null): string {
  const u = new URL(url);
  if (value === null) u.searchParams.delete(name);
  else u.searchParams.set(name, value);
  return u.toString();
}

/** A HEAD of a link (no body expected). */
const headLink = (app: ParleyApp, url: string) => http(app).head(pathOf(url));

describe('attachments: serving signed links', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let g: TestGuild;
  let data: Buffer;
  let file: Posted;
  const lines: string[] = [];

  beforeAll(async () => {
    app = await createTestApp({
      env: { LOG_LEVEL: 'info' },
      logDestination: { write: (line: string) => void lines.push(line) },
    });
    owner = await registerUser(app);
    g = await createGuild(app, owner.token);
    data = randomBytes(100_000);
    file = await postFile(app, owner, g, 'data.bin', data);
  });
  afterAll(() => app?.close());

  it('shows the file on its message with a signed link valid ATTACHMENT_URL_TTL seconds', () => {
    const url = new URL(file.attachment.url);
    expect(url.origin + url.pathname).toBe(
      `http://parley.test/v1/attachments/${g.channelId}/${file.attachment.id}/data.bin`,
    );
    const ex = parseInt(url.searchParams.get('ex')!, 16);
    const is = parseInt(url.searchParams.get('is')!, 16);
    expect(ex - is).toBe(TTL_SECONDS);
    expect(Math.abs(is - Date.now() / 1000)).toBeLessThan(60);
    expect(url.searchParams.get('hm')).toMatch(/^[0-9a-f]{64}$/);
    expect(file.attachment).toMatchObject({
      filename: 'data.bin',
      content_type: 'application/octet-stream',
      size: data.length,
      proxy_url: file.attachment.url,
    });
  });

  it('serves the same bytes with the stored type, its size, a strong ETag and the safety headers', async () => {
    const res = await fetchLink(app, file.attachment.url).expect(200);
    expect(res.body).toEqual(data);
    expect(res.headers).toMatchObject({
      'content-type': 'application/octet-stream',
      'content-length': String(data.length),
      etag: `"${file.attachment.id}-${data.length}"`,
      'accept-ranges': 'bytes',
      'content-disposition': `attachment; filename="data.bin"; filename*=UTF-8''data.bin`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': CSP,
    });
    // Cached privately, never past the link's expiry.
    const maxAge = /^private, max-age=(\d+)$/.exec(res.headers['cache-control']);
    expect(maxAge).not.toBeNull();
    expect(Number(maxAge![1])).toBeGreaterThan(TTL_SECONDS - 60);
    expect(Number(maxAge![1])).toBeLessThanOrEqual(TTL_SECONDS);
  });

  it('serves it on Discord’s paths too', async () => {
    const res = await fetchLink(app, file.attachment.url.replace('/v1/', '/api/v10/')).expect(200);
    expect(res.body).toEqual(data);
  });

  it('serves byte ranges: the first bytes, a suffix, an open range (206 with Content-Range)', async () => {
    const size = data.length;
    for (const [range, start, end] of [
      ['bytes=0-9', 0, 9],
      ['bytes=-10', size - 10, size - 1],
      ['bytes=99000-', 99_000, size - 1],
      ['bytes=5-5', 5, 5],
      ['bytes=99990-200000', 99_990, size - 1],
    ] as const) {
      const res = await fetchLink(app, file.attachment.url).set('Range', range);
      expect({ range, status: res.status }).toEqual({ range, status: 206 });
      expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${size}`);
      expect(res.headers['content-length']).toBe(String(end - start + 1));
      expect(res.headers['content-type']).toBe('application/octet-stream');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.body).toEqual(data.subarray(start, end + 1));
    }
  });

  it('answers 416 with the size for a range it cannot satisfy', async () => {
    for (const range of ['bytes=100000-', 'bytes=200000-300000', 'bytes=9-1', 'bytes=x-y']) {
      const res = await http(app).get(pathOf(file.attachment.url)).set('Range', range);
      expect({ range, status: res.status, body: res.body }).toEqual({
        range,
        status: 416,
        body: {
          code: 'RANGE_NOT_SATISFIABLE',
          message: 'The requested range is not satisfiable (Content-Range gives the size).',
        },
      });
      expect(res.headers['content-range']).toBe(`bytes */${data.length}`);
    }
  });

  it('answers the whole file to several ranges, another unit, or an If-Range that does not match', async () => {
    for (const headers of [
      { Range: 'bytes=0-1,5-6' },
      { Range: 'items=0-1' },
      { Range: 'bytes=0-9', 'If-Range': '"another"' },
    ]) {
      const res = await fetchLink(app, file.attachment.url).set(headers);
      expect({ headers, status: res.status }).toEqual({ headers, status: 200 });
      expect(res.body).toEqual(data);
    }
    const matching = await fetchLink(app, file.attachment.url).set({
      Range: 'bytes=0-9',
      'If-Range': `"${file.attachment.id}-${data.length}"`,
    });
    expect(matching.status).toBe(206);
    expect(matching.body).toEqual(data.subarray(0, 10));
  });

  it('answers 304 without a body to If-None-Match with its ETag', async () => {
    const etag = `"${file.attachment.id}-${data.length}"`;
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await http(app)
        .get(pathOf(file.attachment.url))
        .set('If-None-Match', tag)
        .set('Range', 'bytes=0-9');
      expect({ tag, status: res.status }).toEqual({ tag, status: 304 });
      expect(res.headers.etag).toBe(etag);
      expect(res.headers['content-type']).toBeUndefined();
      expect(res.headers['cache-control']).toMatch(/^private, max-age=\d+$/);
      expect(res.text ?? '').toBe('');
    }
    const changed = await fetchLink(app, file.attachment.url).set('If-None-Match', '"other"');
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual(data);
  });

  it('answers HEAD with the headers of a GET and no body', async () => {
    const res = await headLink(app, file.attachment.url).expect(200);
    expect(res.headers).toMatchObject({
      'content-type': 'application/octet-stream',
      'content-length': String(data.length),
      etag: `"${file.attachment.id}-${data.length}"`,
      'accept-ranges': 'bytes',
      'x-content-type-options': 'nosniff',
      'content-security-policy': CSP,
    });
    expect(res.text ?? '').toBe('');
    const ranged = await headLink(app, file.attachment.url).set('Range', 'bytes=-10').expect(206);
    expect(ranged.headers['content-range']).toBe(
      `bytes ${data.length - 10}-${data.length - 1}/${data.length}`,
    );
    expect(ranged.headers['content-length']).toBe('10');
  });

  it('serves an HTML file named .png as text/html, as a download, sandboxed and not sniffed', async () => {
    const html = Buffer.from('<!DOCTYPE html><html><script>alert(document.cookie)</script></html>');
    const posted = await postFile(app, owner, g, 'x.png', html);
    expect(posted.attachment).toMatchObject({ filename: 'x.png', content_type: 'text/html' });
    expect(posted.attachment.width).toBeUndefined();
    const res = await fetchLink(app, posted.attachment.url).expect(200);
    expect(res.body).toEqual(html);
    expect(res.headers).toMatchObject({
      'content-type': 'text/html',
      'content-disposition': `attachment; filename="x.png"; filename*=UTF-8''x.png`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': CSP,
    });
  });

  it('serves an SVG as a download too', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    );
    const posted = await postFile(app, owner, g, 'logo.svg', svg);
    const res = await fetchLink(app, posted.attachment.url).expect(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.headers['content-disposition']).toMatch(/^attachment; /);
  });

  it('serves a PNG inline, its size read into the message', async () => {
    const image = png(3, 2);
    const posted = await postFile(app, owner, g, 'SPOILER_cat.png', image);
    expect(posted.attachment).toMatchObject({
      content_type: 'image/png',
      width: 3,
      height: 2,
      size: image.length,
      flags: 8,
    });
    const res = await fetchLink(app, posted.attachment.url).expect(200);
    expect(res.body).toEqual(image);
    expect(res.headers).toMatchObject({
      'content-type': 'image/png',
      'content-disposition': `inline; filename="SPOILER_cat.png"; filename*=UTF-8''SPOILER_cat.png`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': CSP,
    });
  });

  it('names a download in UTF-8 with an ASCII fallback', async () => {
    const posted = await postFile(app, owner, g, 'Übersicht "Q3".txt', Buffer.from('plain text\n'));
    const res = await fetchLink(app, posted.attachment.url).expect(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="_bersicht _Q3_.txt"; filename*=UTF-8''%C3%9Cbersicht%20%22Q3%22.txt`,
    );
    // The filename in the link is not signed: another name serves the same file, under its own.
    const renamed = file.attachment.url.replace('/data.bin?', '/other.exe?');
    const again = await fetchLink(app, renamed).expect(200);
    expect(again.body).toEqual(data);
    expect(again.headers['content-disposition']).toMatch(/filename="data\.bin"/);
  });

  const refused = {
    code: 'ACCESS_DENIED',
    message: 'This link is invalid or has expired.',
  };

  it('refuses an expired link with 403', async () => {
    const links = app.get(AttachmentLinks);
    const old = links.url(
      g.channelId,
      file.attachment.id,
      'data.bin',
      Date.now() - (TTL_SECONDS + 5) * 1000,
    );
    const res = await http(app).get(pathOf(old));
    expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: refused });
    // Signed a moment ago: still valid.
    const fresh = links.url(g.channelId, file.attachment.id, 'data.bin', Date.now() - 5_000);
    expect((await fetchLink(app, fresh)).status).toBe(200);
  });

  it('refuses a tampered, truncated or missing signature, and a changed expiry, with 403', async () => {
    const url = file.attachment.url;
    const hm = new URL(url).searchParams.get('hm')!;
    const ex = new URL(url).searchParams.get('ex')!;
    const flipped = (hm[0] === '0' ? '1' : '0') + hm.slice(1);
    for (const bad of [
      withQuery(url, 'hm', flipped),
      withQuery(url, 'hm', hm.slice(0, 63)),
      withQuery(url, 'hm', hm.toUpperCase() === hm ? hm.toLowerCase() : hm.toUpperCase()),
      withQuery(url, 'hm', null),
      withQuery(url, 'ex', (parseInt(ex, 16) + 3600).toString(16)),
      withQuery(url, 'is', null),
      `${url}&hm=${hm}`,
      url.split('?')[0],
    ]) {
      const res = await http(app).get(pathOf(bad));
      expect({ bad, status: res.status, body: res.body }).toEqual({
        bad,
        status: 403,
        body: refused,
      });
    }
  });

  it('refuses the link on another channel or another attachment', async () => {
    const other = await createGuild(app, owner.token);
    const moved = file.attachment.url.replace(`/${g.channelId}/`, `/${other.channelId}/`);
    const res = await http(app).get(pathOf(moved));
    expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: refused });
    const png2 = await postFile(app, owner, g, 'b.png', png(1, 1));
    const swapped = file.attachment.url.replace(
      `/${file.attachment.id}/`,
      `/${png2.attachment.id}/`,
    );
    const res2 = await http(app).get(pathOf(swapped));
    expect({ status: res2.status, body: res2.body }).toEqual({ status: 403, body: refused });
    // Not an id at all: refused the same way, nothing looked up.
    const junk = file.attachment.url.replace(`/${file.attachment.id}/`, '/not-an-id/');
    expect((await http(app).get(pathOf(junk))).status).toBe(403);
  });

  it('answers a refusal on Discord’s paths in Discord’s form', async () => {
    const bad = withQuery(file.attachment.url, 'hm', '0'.repeat(64)).replace('/v1/', '/api/v10/');
    const res = await http(app).get(pathOf(bad));
    expect({ status: res.status, body: res.body }).toEqual({
      status: 403,
      body: { code: 50001, message: 'Missing Access' },
    });
  });

  it('answers 404 for a file whose message was deleted, even through a valid link', async () => {
    const posted = await postFile(app, owner, g, 'gone.txt', Buffer.from('soon gone'));
    await fetchLink(app, posted.attachment.url).expect(200);
    await http(app)
      .delete(`/v1/channels/${g.channelId}/messages/${posted.messageId}`)
      .set('Authorization', owner.token)
      .expect(204);
    const res = await http(app).get(pathOf(posted.attachment.url));
    expect({ status: res.status, body: res.body }).toEqual({
      status: 404,
      body: { code: 'UNKNOWN_ATTACHMENT', message: 'Unknown attachment.' },
    });
  });

  it('answers 404 for a file never attached to a message (a link signed for it by hand)', async () => {
    const { field: _f, ...loose } = await app
      .get(AttachmentStore)
      .receive(
        { channelId: g.channelId, guildId: g.guildId, uploaderId: owner.userId },
        Readable.from([Buffer.from('pending')]),
        { field: 'files[0]', filename: 'pending.txt', limit: 1024 },
      );
    const link = app.get(AttachmentLinks).url(g.channelId, loose.id, loose.filename);
    // Unattached but within its upload TTL (as an ephemeral message's file is): served.
    await fetchLink(app, link).expect(200);
    await app
      .get(DataSource)
      .query(`UPDATE attachments SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        loose.id,
      ]);
    const res = await http(app).get(pathOf(link));
    expect({ status: res.status, body: res.body }).toEqual({
      status: 404,
      body: { code: 'UNKNOWN_ATTACHMENT', message: 'Unknown attachment.' },
    });
  });

  it('keeps the signature (and the filename) out of the request log', async () => {
    const reqId = `attachment-log-${Date.now()}`;
    await fetchLink(app, file.attachment.url).set('X-Request-Id', reqId).expect(200);
    const hm = new URL(file.attachment.url).searchParams.get('hm')!;
    const deadline = Date.now() + 5_000;
    let line: Record<string, unknown> | undefined;
    while (!line && Date.now() < deadline) {
      const raw = lines.find(
        (l) => l.includes(`"reqId":"${reqId}"`) && l.includes('"msg":"request"'),
      );
      if (raw) line = JSON.parse(raw) as Record<string, unknown>;
      else await new Promise((r) => setTimeout(r, 10));
    }
    const { ex, is } = Object.fromEntries(new URL(file.attachment.url).searchParams);
    expect(line?.url).toBe(
      // The filename is a path value that is neither an id nor a route word: redacted too.
      `/v1/attachments/${g.channelId}/${file.attachment.id}/[redacted]?ex=${ex}&is=${is}&hm=[redacted]`,
    );
    expect(lines.some((l) => l.includes(hm))).toBe(false);
  });

  it('closes the blob when the client goes away mid-download', async () => {
    // Larger than what the socket buffers hold: the server is still reading the file when the
    // client stops.
    const big = randomBytes(24 * 1024 * 1024);
    const posted = await postFile(app, owner, g, 'big.bin', big);
    const blobPath = app
      .get<BlobStorage, LocalBlobStorage>(BlobStorage)
      .path(AttachmentStore.blobKey(g.channelId, posted.attachment.id));
    const openFds = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === blobPath;
        } catch {
          return false;
        }
      }).length;
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    const openWhileStalled = await new Promise<number>((resolve, reject) => {
      const req = httpGet(
        { host: '127.0.0.1', port, path: pathOf(posted.attachment.url) },
        (res) => {
          expect(res.statusCode).toBe(200);
          res.once('data', () => {
            res.pause();
            // Let the server fill the socket buffers and stall on backpressure.
            setTimeout(() => {
              const during = openFds();
              req.destroy();
              resolve(during);
            }, 300);
          });
        },
      );
      req.on('error', (err) => {
        if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
      });
    });
    // The server had the file open while the client was stalled…
    expect(openWhileStalled).toBe(1);
    // …and closes it once the client is gone.
    const deadline = Date.now() + 5_000;
    while (openFds() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(openFds()).toBe(0);
    // The server is fine: the next download is whole.
    const again = await fetchLink(app, posted.attachment.url).expect(200);
    expect(again.body.length).toBe(big.length);
  }, 30_000);
});

describe('attachments: refresh-urls', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let member: TestUser;
  let outsider: TestUser;
  let g: TestGuild;
  let data: Buffer;
  let file: Posted;

  beforeAll(async () => {
    app = await createTestApp();
    [owner, member, outsider] = await Promise.all([
      registerUser(app),
      registerUser(app),
      registerUser(app),
    ]);
    g = await createGuild(app, owner.token);
    await addMember(app, g.guildId, member.userId);
    data = Buffer.from('refresh me');
    file = await postFile(app, owner, g, 'notes.txt', data);
  });
  afterAll(() => app?.close());

  const refresh = (user: TestUser | null, body: unknown) => {
    const req = http(app).post('/v1/attachments/refresh-urls');
    if (user) req.set('Authorization', user.token);
    return req.send(body as object);
  };

  /** The link as it was signed a while ago (expired). */
  const expiredLink = () =>
    app
      .get(AttachmentLinks)
      .url(g.channelId, file.attachment.id, 'notes.txt', Date.now() - 2 * TTL_SECONDS * 1000);

  it('answers 401 without credentials', async () => {
    const res = await refresh(null, { attachment_urls: [file.attachment.url] });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 401,
      body: { code: 'UNAUTHORIZED', message: 'Unauthorized.' },
    });
  });

  it('signs an expired link again for a member, and the new link downloads the file', async () => {
    const old = expiredLink();
    expect((await http(app).get(pathOf(old))).status).toBe(403);
    const res = await refresh(member, { attachment_urls: [old] }).expect(200);
    expect(res.body).toEqual({
      refreshed_urls: [{ original: old, refreshed: expect.any(String) }],
    });
    const refreshed = new URL(res.body.refreshed_urls[0].refreshed as string);
    expect(refreshed.pathname).toBe(
      `/v1/attachments/${g.channelId}/${file.attachment.id}/notes.txt`,
    );
    const is = parseInt(refreshed.searchParams.get('is')!, 16);
    expect(Math.abs(is - Date.now() / 1000)).toBeLessThan(60);
    expect(parseInt(refreshed.searchParams.get('ex')!, 16) - is).toBe(TTL_SECONDS);
    const download = await fetchLink(app, refreshed.toString()).expect(200);
    expect(download.body).toEqual(data);
  });

  it('works on Discord’s paths', async () => {
    const res = await http(app)
      .post('/api/v10/attachments/refresh-urls')
      .set('Authorization', member.token)
      .send({ attachment_urls: [file.attachment.url] })
      .expect(200);
    expect(res.body.refreshed_urls).toHaveLength(1);
  });

  it('leaves out what the caller cannot see, what is gone and what is not a link, in the order sent', async () => {
    const old = expiredLink();
    const gone = await postFile(app, owner, g, 'gone.txt', Buffer.from('x'));
    await http(app)
      .delete(`/v1/channels/${g.channelId}/messages/${gone.messageId}`)
      .set('Authorization', owner.token)
      .expect(204);
    const otherGuild = await createGuild(app, owner.token);
    const elsewhere = await postFile(app, owner, otherGuild, 'private.txt', Buffer.from('y'));
    const wrongChannel = file.attachment.url.replace(
      `/${g.channelId}/`,
      `/${otherGuild.channelId}/`,
    );
    const urls = [
      'not a url',
      gone.attachment.url,
      old,
      elsewhere.attachment.url,
      wrongChannel,
      'https://parley.test/v1/attachments/99999999999999999999/1/x.txt',
      'https://parley.test/v1/attachments/1/2/x.txt',
      file.attachment.url,
    ];
    const res = await refresh(member, { attachment_urls: urls }).expect(200);
    expect(res.body.refreshed_urls.map((r: { original: string }) => r.original)).toEqual([
      old,
      file.attachment.url,
    ]);
    // The owner sees the other guild's file too.
    const mine = await refresh(owner, { attachment_urls: urls }).expect(200);
    expect(mine.body.refreshed_urls.map((r: { original: string }) => r.original)).toEqual([
      old,
      elsewhere.attachment.url,
      file.attachment.url,
    ]);
  });

  it('refreshes nothing for a user who is not in the guild', async () => {
    const res = await refresh(outsider, { attachment_urls: [file.attachment.url, expiredLink()] });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: { refreshed_urls: [] },
    });
  });

  it('refreshes nothing for a member who may not read the channel’s history', async () => {
    const h = await createGuild(app, owner.token);
    const reader = await registerUser(app);
    await addMember(app, h.guildId, reader.userId);
    const posted = await postFile(app, owner, h, 'history.txt', Buffer.from('z'));
    expect(
      (await refresh(reader, { attachment_urls: [posted.attachment.url] })).body.refreshed_urls,
    ).toHaveLength(1);
    await http(app)
      .patch(`/v1/guilds/${h.guildId}/roles/${h.guildId}`)
      .set('Authorization', owner.token)
      .send({ permissions: String(Permissions.VIEW_CHANNEL | Permissions.SEND_MESSAGES) })
      .expect(200);
    const res = await refresh(reader, { attachment_urls: [posted.attachment.url] }).expect(200);
    expect(res.body).toEqual({ refreshed_urls: [] });
  });

  it('answers 400 for a body that is not 1–50 links of at most 2,048 characters', async () => {
    const long = `${file.attachment.url}&pad=${'a'.repeat(2048)}`;
    for (const [body, path, code] of [
      [{}, 'attachment_urls', 'BASE_TYPE_ARRAY'],
      [{ attachment_urls: 'x' }, 'attachment_urls', 'BASE_TYPE_ARRAY'],
      [{ attachment_urls: [] }, 'attachment_urls', 'BASE_TYPE_MIN_LENGTH'],
      [
        { attachment_urls: Array(51).fill(file.attachment.url) },
        'attachment_urls',
        'BASE_TYPE_MAX_LENGTH',
      ],
      [{ attachment_urls: [long] }, 'attachment_urls', 'BASE_TYPE_MAX_LENGTH'],
      [{ attachment_urls: [42] }, 'attachment_urls', 'BASE_TYPE_STRING'],
    ] as const) {
      const res = await refresh(member, body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({
        body,
        status: 400,
        code: 'INVALID_FORM_BODY',
      });
      expect(res.body.errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ path, code })]),
      );
    }
    // 50 links are fine.
    const fifty = await refresh(member, {
      attachment_urls: Array(50).fill(file.attachment.url),
    }).expect(200);
    expect(fifty.body.refreshed_urls).toHaveLength(50);
  });
});

describe('attachments: served from S3', () => {
  let s3: TestS3;
  let app: ParleyApp;

  beforeAll(async () => {
    s3 = await startS3();
    app = await createTestApp({ env: s3.env });
  });
  afterAll(async () => {
    await app?.close();
    await s3?.close();
  });

  it('streams the object, its ranges and its headers from the bucket', async () => {
    const owner = await registerUser(app);
    const g = await createGuild(app, owner.token);
    const image = Buffer.concat([png(4, 5), randomBytes(50_000)]);
    const posted = await postFile(app, owner, g, 'photo.png', image);
    expect(posted.attachment).toMatchObject({ content_type: 'image/png', width: 4, height: 5 });

    const whole = await fetchLink(app, posted.attachment.url).expect(200);
    expect(whole.body).toEqual(image);
    expect(whole.headers).toMatchObject({
      'content-type': 'image/png',
      'content-length': String(image.length),
      'content-disposition': `inline; filename="photo.png"; filename*=UTF-8''photo.png`,
      'x-content-type-options': 'nosniff',
    });
    const part = await fetchLink(app, posted.attachment.url)
      .set('Range', 'bytes=10-20')
      .expect(206);
    expect(part.headers['content-range']).toBe(`bytes 10-20/${image.length}`);
    expect(part.body).toEqual(image.subarray(10, 21));
    const tail = await fetchLink(app, posted.attachment.url).set('Range', 'bytes=-7').expect(206);
    expect(tail.body).toEqual(image.subarray(image.length - 7));
    const beyond = await http(app)
      .get(pathOf(posted.attachment.url))
      .set('Range', `bytes=${image.length}-`);
    expect(beyond.status).toBe(416);
  }, 30_000);
});
