import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { chmod, copyFile, mkdir, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { dirname, join, normalize, sep } from 'node:path';

/**
 * Where binary blobs (assets, archives) live. Keys are relative, slash-separated paths. Local disk
 * (below) is the default; s3-blob-storage.ts keeps them in an S3-compatible bucket.
 */
export abstract class BlobStorage {
  abstract put(key: string, data: Buffer): Promise<void>;
  /** The blobs directly inside the folder `prefix` (not its sub-folders), with their sizes. */
  abstract list(prefix: string): Promise<BlobInfo[]>;
  /** Deletes a blob; returns the bytes it freed (0 when there was no such blob). */
  abstract delete(key: string): Promise<number>;
  /** Stores the file at `sourcePath` (a large file, never read into memory) under `key`. */
  abstract putFile(key: string, sourcePath: string): Promise<void>;
  /**
   * Stores what `source` yields under `key` as it arrives, never holding it whole (uploads). When
   * `source` fails — a size limit, a client gone mid-upload — nothing is left under `key` and
   * the error is rethrown. Resolves to the bytes stored.
   */
  abstract putStream(key: string, source: Readable): Promise<number>;
  /**
   * A streaming read of a blob, or null when there is no such blob. With `range`, only those
   * bytes (served as HTTP 206: `start` and `end` inclusive, `start <= end < size` — the caller
   * checks it against the size it knows). `size` is always the whole blob's.
   */
  abstract open(key: string, range?: ByteRange): Promise<OpenedBlob | null>;
}

/** Inclusive byte positions, as an HTTP `Range: bytes=start-end` names them. */
export interface ByteRange {
  start: number;
  end: number;
}

/** A blob being read: its bytes (all, or the range asked for) and its whole size. */
export interface OpenedBlob {
  stream: Readable;
  size: number;
}

/** A key is relative and slash-separated, with no empty, `.` or `..` segment. */
export function assertBlobKey(key: string): string {
  const segments = key.split('/');
  if (
    key.length === 0 ||
    key.length > 512 ||
    segments.some((p) => p === '' || p === '.' || p === '..')
  ) {
    throw new Error(`invalid blob key ${key}`);
  }
  return key;
}

export interface BlobInfo {
  key: string;
  size: number;
}

const isMissing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/** Files 0600 in folders 0700: blobs (archives of a user's data, uploads) are this process's alone. */
const FILE_MODE = 0o600;
/** Bytes of a streamed write gathered while the previous write is in flight (putStream). */
const WRITE_BUFFER = 1024 * 1024;
/** Bytes per read of a streamed blob (open). */
const READ_BUFFER = 512 * 1024;
const DIR_MODE = 0o700;

/**
 * Blobs as files under a root folder (DATA_DIR). Writes go through a temp file + rename. Every
 * file is written 0600 and every folder made 0700 — archives hold e-mail addresses, IP addresses,
 * birth dates and messages — and a top-level folder made by an older version (0755) is closed on
 * first use. The root itself is left as it is (the embedded database's user must cross it).
 */
export class LocalBlobStorage extends BlobStorage {
  /** Top-level folders already made private in this process. */
  private readonly closed = new Set<string>();

  constructor(private readonly root: string) {
    super();
  }

  /** Makes the folder of `target` (0700), and its top-level folder under the root private. */
  private async folderFor(target: string): Promise<void> {
    await mkdir(dirname(target), { recursive: true, mode: DIR_MODE });
    const top = target.slice(normalize(this.root).length + 1).split(sep)[0];
    if (!this.closed.has(top)) {
      await chmod(join(this.root, top), DIR_MODE);
      this.closed.add(top);
    }
  }

  path(key: string): string {
    assertBlobKey(key);
    const full = normalize(join(this.root, key));
    if (!full.startsWith(normalize(this.root) + sep)) throw new Error(`invalid blob key ${key}`);
    return full;
  }

  async put(key: string, data: Buffer): Promise<void> {
    const target = this.path(key);
    await this.folderFor(target);
    const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, data, { mode: FILE_MODE });
    await rename(tmp, target);
  }

  async putFile(key: string, sourcePath: string): Promise<void> {
    const target = this.path(key);
    await this.folderFor(target);
    const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
    await copyFile(sourcePath, tmp);
    // A copy keeps the source's mode: narrow it before the blob appears under its name.
    await chmod(tmp, FILE_MODE);
    await rename(tmp, target);
  }

  async putStream(key: string, source: Readable): Promise<number> {
    const target = this.path(key);
    await this.folderFor(target);
    const tmp = `${target}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2)}.tmp`;
    // While one write is in flight the next chunks gather (up to 1 MiB) and go down in one
    // writev: fewer thread-pool round trips per upload (bench/RESULTS.md, 2026-11-27 attachments).
    const out = createWriteStream(tmp, { mode: FILE_MODE, highWaterMark: WRITE_BUFFER });
    try {
      await pipeline(source, out);
      await rename(tmp, target);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    return out.bytesWritten;
  }

  async open(key: string, range?: ByteRange): Promise<OpenedBlob | null> {
    const target = this.path(key);
    try {
      const { size } = await stat(target);
      // 512 KiB reads: a download costs an eighth of the reads and socket writes of 64 KiB ones.
      const stream = range
        ? createReadStream(target, {
            start: range.start,
            end: range.end,
            highWaterMark: READ_BUFFER,
          })
        : createReadStream(target, { highWaterMark: READ_BUFFER });
      return { stream, size };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async list(prefix: string): Promise<BlobInfo[]> {
    const folder = this.path(prefix);
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
    const out: BlobInfo[] = [];
    // Temp files are writes in flight (put), not blobs yet.
    for (const e of entries.filter((f) => f.isFile() && !f.name.endsWith('.tmp'))) {
      try {
        out.push({ key: `${prefix}/${e.name}`, size: (await stat(join(folder, e.name))).size });
      } catch (err) {
        if (!isMissing(err)) throw err;
      }
    }
    return out;
  }

  async delete(key: string): Promise<number> {
    const target = this.path(key);
    try {
      const { size } = await stat(target);
      await unlink(target);
      return size;
    } catch (err) {
      if (isMissing(err)) return 0;
      throw err;
    }
  }
}
