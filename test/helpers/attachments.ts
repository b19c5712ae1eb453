import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { BlobStorage } from '../../src/infra/storage/blob-storage';
import {
  AttachmentStore,
  type ReceivedFile,
} from '../../src/modules/guilds/attachments/attachment-store';
import type { StoredAttachment } from '../../src/modules/guilds/attachments/stored-attachment';
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

/** Stores `bytes` (default: 4 KiB of random bytes) through the real store, not attached to anything. */
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
 * Posts a message with files: the message through the API, the files through the real store,
 * attached with `AttachmentStore.attach` and listed in `messages.attachments` (a fixture
 * transaction, until multipart posting is on main). Returns the message id and its files.
 */
export async function postWithFiles(
  app: ParleyApp,
  token: string,
  target: FileTarget,
  count = 1,
): Promise<{ messageId: string; files: TestFile[] }> {
  const res = await http(app)
    .post(`/v1/channels/${target.channelId}/messages`)
    .set('Authorization', token)
    .send({ content: unique('with files ') });
  if (res.status !== 201) throw new Error(`post: ${res.status} ${JSON.stringify(res.body)}`);
  const messageId = res.body.id as string;
  const stored: Array<TestFile & { received: ReceivedFile }> = [];
  for (let i = 0; i < count; i++) stored.push(await storeFile(app, target));
  const shown: StoredAttachment[] = stored.map(({ received: { field: _field, ...rest } }) => rest);
  await app.get(DataSource).transaction(async (m) => {
    await m.query(`SET LOCAL parley.fixture = 'on'`);
    await app.get(AttachmentStore).attach(m, messageId, shown);
    await m.query('UPDATE messages SET attachments = $2::jsonb WHERE id = $1', [
      messageId,
      JSON.stringify(shown),
    ]);
  });
  return { messageId, files: stored.map(({ received: _r, ...file }) => file) };
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
