import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/**
 * The addresses each user is known at (`authorized_ips`, ARCHITECTURE.md §6): where they logged
 * in from, or authorized by e-mail. Below both IP authorization and login completion, which
 * read and write it.
 */
@Injectable()
export class AuthorizedIpsService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Whether the user has logged in from this address before (an authorized IP). */
  async isKnown(userId: string, ip: string | null | undefined): Promise<boolean> {
    if (!ip) return false;
    const rows = await this.db.query<unknown[]>(
      'SELECT 1 FROM authorized_ips WHERE user_id = $1 AND ip = $2',
      [userId, ip],
    );
    return rows.length > 0;
  }

  /** Remembers (or refreshes) a known IP of a user. */
  async record(userId: string, ip: string | null | undefined, manager?: EntityManager) {
    if (!ip) return;
    await (manager ?? this.db).query(
      `INSERT INTO authorized_ips (user_id, ip, created_at, last_used_at) VALUES ($1, $2, now(), now())
       ON CONFLICT (user_id, ip) DO UPDATE SET last_used_at = now()`,
      [userId, ip],
    );
  }
}
