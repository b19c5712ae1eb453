import { Module } from '@nestjs/common';

/** Guild asset purge. */
@Module({})
export class AssetsModule {}
