import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app.config';
import { SnowflakeGenerator } from './snowflake';

/** The process-wide snowflake generator, with WORKER_ID from config. */
@Injectable()
export class SnowflakeService extends SnowflakeGenerator {
  constructor(config: AppConfig) {
    super(config.workerId);
  }
}
