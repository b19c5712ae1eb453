import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { dirname, join, normalize, sep } from 'node:path';

/**
 * Where binary blobs (assets, archives) live. Keys are relative, slash-separated paths. The local
 * disk implementation is the default; an S3-compatible one can implement the same port later.
 */
export abstract class BlobStorage {
  abstract put(key: string, data: Buffer): Promise<void>;
  /** The blobs directly inside the folder `prefix` (not its sub-folders), with their sizes. */
  abstract list(prefix: string): Promise<BlobInfo[]>;
  /** Deletes a blob; returns the bytes it freed (0 when there was no such blob). */
  abstract delete(key: string): Promise<number>;
  /** Stores the file at `sourcePath` (a large file, never read into memory) under `key`. */
  abstract putFile(key: string, sourcePath: string): Promise<void>;
  /** A streaming read of a blob with its size, or null when there is no such blob. */
  abstract open(key: string): Promise<{ stream: Readable; size: number } | null>;
}

export interface BlobInfo {
  key: string;
  size: number;
}

const isMissing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/** Blobs as files under a root folder (DATA_DIR). Writes go through a temp file + rename. */
export class LocalBlobStorage extends BlobStorage {
  constructor(private readonly root: string) {
    super();
  }

  path(key: string): string {
    const full = normalize(join(this.root, key));
    if (!full.startsWith(normalize(this.root) + sep)) throw new Error(`invalid blob key ${key}`);
    return full;
  }

  async put(key: string, data: Buffer): Promise<void> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, data);
    await rename(tmp, target);
  }

  async putFile(key: string, sourcePath: string): Promise<void> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
    await copyFile(sourcePath, tmp);
    await rename(tmp, target);
  }

  async open(key: string): Promise<{ stream: Readable; size: number } | null> {
    const target = this.path(key);
    try {
      const { size } = await stat(target);
      return { stream: createReadStream(target), size };
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
