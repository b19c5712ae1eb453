import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SweeperService } from '../../../common/maintenance/sweeper.service';
import { BlobStorage } from '../../../infra/storage/blob-storage';

const BATCH = 200;

/** Expired archives keep their row (reported `expired`) but lose their file. */
@Injectable()
export class ArchivesMaintenance implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly sweeper: SweeperService,
    private readonly blobs: BlobStorage,
  ) {}

  onModuleInit(): void {
    this.sweeper.register({ name: 'archive_files', run: () => this.deleteExpiredFiles() });
  }

  async deleteExpiredFiles(): Promise<number> {
    const rows = await this.db.query<Array<{ id: string; blob_key: string }>>(
      `SELECT id::text AS id, blob_key FROM archives
        WHERE expires_at <= now() AND blob_key IS NOT NULL ORDER BY expires_at LIMIT ${BATCH}`,
    );
    for (const row of rows) {
      await this.blobs.delete(row.blob_key);
      await this.db.query('UPDATE archives SET blob_key = NULL WHERE id = $1', [row.id]);
    }
    return rows.length;
  }
}
