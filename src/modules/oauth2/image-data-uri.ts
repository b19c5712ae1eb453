import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHash } from 'node:crypto';

const EXT: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

export interface DecodedImage {
  mime: string;
  ext: string;
  bytes: Buffer;
  /** Content hash used as the avatar/banner "hash" (hex prefix of SHA-256). */
  hash: string;
}

/** Why the value is not a usable Base64ImageType, or the decoded image. */
export function decodeImageDataUri(value: string): DecodedImage | string {
  const m = /^data:([a-z]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/i.exec(value);
  if (!m) return 'must be a base64 data URI (data:image/png;base64,...)';
  const mime = m[1].toLowerCase();
  const ext = EXT[mime];
  if (!ext) return 'must be a PNG, JPEG, GIF or WebP image';
  const bytes = Buffer.from(m[2], 'base64');
  if (bytes.length === 0) return 'must not be empty';
  if (bytes.length > MAX_IMAGE_BYTES) return 'is too large';
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 32);
  return { mime, ext, bytes, hash };
}

/** Writes an image under `<dataDir>/assets/<kind>/<ownerId>/<hash>.<ext>` (idempotent). */
export async function storeImage(
  dataDir: string,
  kind: 'avatars' | 'banners',
  ownerId: string,
  image: DecodedImage,
): Promise<void> {
  const dir = join(dataDir, 'assets', kind, ownerId);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${image.hash}.${image.ext}`), image.bytes);
}
