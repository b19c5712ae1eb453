import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app.config';
import { AssetStorage } from './asset-storage.service';
import { BlobStorage, LocalBlobStorage } from './blob-storage';

/** The blob storage port (local disk under BLOB_DIR, by default DATA_DIR) and the image asset helper on top of it. */
@Module({
  providers: [
    {
      provide: BlobStorage,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new LocalBlobStorage(config.blobDir),
    },
    AssetStorage,
  ],
  exports: [BlobStorage, AssetStorage],
})
export class StorageModule {}
