import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { crc32, deflateSync } from 'node:zlib';
import { DataSource } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { BlobStorage } from '../../src/infra/storage/blob-storage';
import {
  AttachmentStore,
  type ReceivedFile,
} from '../../src/modules/guilds/attachments/attachment-store';
import { http, unique } from './app';

/** A file stored for a test: its attachment id, blob key and the bytes it holds. */
export interface TestFile {
  id: string;
  key: string;
  filename: string;
  bytes: Buffer;
}

export interface FileTarget {
  guildId: string;
  channelId: string;
  uploaderId: string;
}

/**
 * Stores `bytes` (default: 4 KiB of random bytes) through the real store, attached to nothing:
 * an upload waiting for its message (as the upload-URL flow leaves one).
 */
export async function storeFile(
  app: ParleyApp,
  target: FileTarget,
  bytes: Buffer = randomBytes(4096),
  filename = unique('file-') + '.bin',
): Promise<TestFile & { received: ReceivedFile }> {
  const received = await app
    .get(AttachmentStore)
    .receive(target, Readable.from([bytes]), { field: 'files[0]', filename, limit: 1 << 20 });
  return {
    id: received.id,
    key: AttachmentStore.blobKey(target.channelId, received.id),
    filename: received.filename,
    bytes,
    received,
  };
}

/**
 * Posts a message with `count` files (4 KiB of random bytes each) the way clients do: a
 * multipart body, `payload_json` and `files[n]`. Returns the message id and its files.
 */
export async function postWithFiles(
  app: ParleyApp,
  token: string,
  target: FileTarget,
  count = 1,
): Promise<{ messageId: string; files: TestFile[] }> {
  const sent = Array.from({ length: count }, () => ({
    filename: unique('file-') + '.bin',
    bytes: randomBytes(4096),
  }));
  let req = http(app)
    .post(`/v1/channels/${target.channelId}/messages`)
    .set('Authorization', token)
    .field('payload_json', JSON.stringify({ content: unique('with files ') }));
  sent.forEach((f, i) => {
    req = req.attach(`files[${i}]`, f.bytes, { filename: f.filename });
  });
  const res = await req;
  if (res.status !== 201) throw new Error(`post: ${res.status} ${JSON.stringify(res.body)}`);
  const shown = res.body.attachments as Array<{ id: string; filename: string }>;
  return {
    messageId: res.body.id as string,
    files: sent.map((f) => {
      const id = shown.find((a) => a.filename === f.filename)?.id;
      if (!id) throw new Error(`${f.filename} is not on the message`);
      return { id, key: AttachmentStore.blobKey(target.channelId, id), ...f };
    }),
  };
}

/** Whether blob storage still holds `key` (BlobStorage.open; the stream is closed again). */
export async function blobExists(app: ParleyApp, key: string): Promise<boolean> {
  const blob = await app.get(BlobStorage).open(key);
  if (!blob) return false;
  // A file deleted between the look-up and the lazy open fails the stream: it was there.
  blob.stream.on('error', () => undefined);
  blob.stream.destroy();
  return true;
}

/** The attachment's row as the lifecycle sees it, or null once it is gone. */
export async function attachmentRow(
  app: ParleyApp,
  id: string,
): Promise<{ message_id: string | null; expires_at: Date | null } | null> {
  const [row] = await app
    .get(DataSource)
    .query<Array<{ message_id: string | null; expires_at: Date | null }>>(
      'SELECT message_id::text AS message_id, expires_at FROM attachments WHERE id = $1',
      [id],
    );
  return row ?? null;
}

/**
 * Lets every member of the guild post files: ATTACH_FILES on @everyone (through the role route,
 * as an owner would), whatever a new guild's @everyone holds by default.
 */
export async function allowFiles(app: ParleyApp, ownerToken: string, guildId: string) {
  const roles = await http(app).get(`/v1/guilds/${guildId}/roles`).set('Authorization', ownerToken);
  const everyone = (roles.body as Array<{ id: string; permissions: string }>).find(
    (r) => r.id === guildId,
  );
  if (!everyone) throw new Error(`no @everyone in ${guildId}: ${roles.status}`);
  const res = await http(app)
    .patch(`/v1/guilds/${guildId}/roles/${guildId}`)
    .set('Authorization', ownerToken)
    .send({ permissions: (BigInt(everyone.permissions) | (1n << 15n)).toString() });
  if (res.status !== 200) throw new Error(`allow files: ${res.status} ${JSON.stringify(res.body)}`);
}

/** A real PNG of `width`×`height` random RGB pixels (so it does not compress much). */
export function pngImage(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) rows.push(Buffer.concat([Buffer.of(0), randomBytes(width * 3)]));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export async function readStream(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
