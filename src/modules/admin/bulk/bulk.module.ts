import { Module } from '@nestjs/common';

/** Bulk operations. */
@Module({})
export class BulkModule {}
