import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { sqlSweep, SweeperService } from '../../common/maintenance/sweeper.service';

/** Delivery ids are de-duplicated for a day; older ones are dropped. */
@Injectable()
export class WebhooksMaintenance implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly sweeper: SweeperService,
  ) {}

  onModuleInit(): void {
    this.sweeper.register(
      sqlSweep(
        'webhook_deliveries',
        this.db,
        "DELETE FROM webhook_deliveries WHERE created_at < now() - interval '1 day'",
      ),
    );
  }
}
