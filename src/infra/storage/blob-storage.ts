import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join, normalize, sep } from 'node:path';

/**
 * Where binary blobs (assets, archives) live. Keys are relative, slash-separated paths. The local
 * disk implementation is the default; an S3-compatible one can implement the same port later.
 */
export abstract class BlobStorage {
  abstract put(key: string, data: Buffer): Promise<void>;
}

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
}
