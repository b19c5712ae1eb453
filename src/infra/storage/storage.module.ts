import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app.config';
import { AssetStorage } from './asset-storage.service';
import { BlobStorage, LocalBlobStorage } from './blob-storage';

/**
 * The blob storage port — local disk under BLOB_DIR (by default DATA_DIR), or an S3-compatible
 * bucket with BLOB_STORAGE=s3 (the AWS SDK is loaded only then; boot fails when the bucket
 * cannot be reached) — and the image asset helper on top of it.
 */
@Module({
  providers: [
    {
      provide: BlobStorage,
      inject: [AppConfig],
      useFactory: async (config: AppConfig): Promise<BlobStorage> => {
        if (config.blobs.s3) {
          const { S3BlobStorage } = await import('./s3-blob-storage');
          return S3BlobStorage.connect(config.blobs.s3);
        }
        return new LocalBlobStorage(config.blobDir);
      },
    },
    AssetStorage,
  ],
  exports: [BlobStorage, AssetStorage],
})
export class StorageModule {}
