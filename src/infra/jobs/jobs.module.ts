import { Module } from '@nestjs/common';
import { JobsService } from './jobs.service';

/** Background jobs on pg-boss in the application database (one JobsService per app). */
@Module({
  providers: [JobsService],
  exports: [JobsService],
})
export class JobsModule {}
