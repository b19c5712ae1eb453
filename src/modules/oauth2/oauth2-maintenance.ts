import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { sqlSweep, SweeperService } from '../../common/maintenance/sweeper.service';

/**
 * Expired OAuth2 codes and tokens. Codes are kept an hour past expiry and tokens a day, so reuse
 * detection (which revokes a grant) still sees recently used ones.
 */
@Injectable()
export class OAuth2Maintenance implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly sweeper: SweeperService,
  ) {}

  onModuleInit(): void {
    this.sweeper.register(
      sqlSweep(
        'oauth2_codes',
        this.db,
        "DELETE FROM oauth2_codes WHERE expires_at < now() - interval '1 hour'",
      ),
    );
    this.sweeper.register(
      sqlSweep(
        'oauth2_tokens',
        this.db,
        "DELETE FROM oauth2_tokens WHERE expires_at < now() - interval '1 day'",
      ),
    );
  }
}
