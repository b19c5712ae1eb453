import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { sqlSweep, SweeperService } from '../../common/maintenance/sweeper.service';
import { HandoffService } from './handoff.service';

/** Expired or spent single-use rows of the accounts module; kept a day for support and audits. */
@Injectable()
export class AuthMaintenance implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly sweeper: SweeperService,
    private readonly handoffs: HandoffService,
  ) {}

  onModuleInit(): void {
    this.sweeper.register(
      sqlSweep(
        'email_tokens',
        this.db,
        "DELETE FROM email_tokens WHERE expires_at < now() - interval '1 day'",
      ),
    );
    this.sweeper.register(
      sqlSweep(
        'auth_tickets',
        this.db,
        "DELETE FROM auth_tickets WHERE expires_at < now() - interval '1 day'",
      ),
    );
    this.sweeper.register({ name: 'auth_handoffs', run: () => this.handoffs.sweep() });
  }
}
