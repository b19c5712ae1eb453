import { Module } from '@nestjs/common';

/** User and guild data archives. */
@Module({})
export class ArchivesModule {}
