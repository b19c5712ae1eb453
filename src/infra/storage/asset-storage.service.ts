import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { BlobStorage, type BlobInfo } from './blob-storage';
import { parseImageDataUri, type ParsedImage } from './data-uri';

/** Kinds of image assets, also the folder names under `assets/`. */
export type AssetKind = 'icons' | 'banners' | 'avatars';

/** The folder of one owner's assets of a kind: `assets/<kind>/<owner id>`. */
export const assetFolder = (kind: AssetKind, ownerId: string): string =>
  `assets/${kind}/${ownerId}`;

/**
 * Stores uploaded images (Base64ImageType) content-addressed at
 * `assets/<kind>/<owner id>/<hash>.<ext>`; entities keep only the hash.
 */
@Injectable()
export class AssetStorage {
  constructor(private readonly blobs: BlobStorage) {}

  /**
   * Parses and stores a data URI; returns its hash (32 hex characters of SHA-256). `null` clears
   * the asset (returns null). Bad input is a 400 on `path`.
   */
  async storeImage(
    kind: AssetKind,
    ownerId: string,
    dataUri: string | null,
    path: string,
  ): Promise<string | null> {
    if (dataUri === null) return null;
    return this.storeParsed(kind, ownerId, parseImageDataUri(dataUri, path));
  }

  /** Stores an image already parsed (parseImageDataUri); returns its hash. */
  async storeParsed(kind: AssetKind, ownerId: string, image: ParsedImage): Promise<string> {
    const hash = createHash('sha256').update(image.data).digest('hex').slice(0, 32);
    await this.blobs.put(`${assetFolder(kind, ownerId)}/${hash}.${image.ext}`, image.data);
    return hash;
  }

  /**
   * Every stored file of one owner's assets of a kind: the current image and former ones (a new
   * upload does not delete the previous file). Used by the admin asset purge.
   */
  listFiles(kind: AssetKind, ownerId: string): Promise<BlobInfo[]> {
    return this.blobs.list(assetFolder(kind, ownerId));
  }

  /** Deletes one stored file (a key from listFiles); returns the bytes freed, 0 when absent. */
  deleteFile(key: string): Promise<number> {
    return this.blobs.delete(key);
  }
}
