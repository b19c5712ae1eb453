import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { PreparedStatement } from '../../database/prepared';
import { normalizeEmail } from './ban-values';

const IP_BANNED = new PreparedStatement<{ banned: number }>(
  'parley_ip_banned',
  'SELECT 1 AS banned FROM ip_bans WHERE range >>= $1::inet LIMIT 1',
);

/**
 * The ban checks other modules call (it sits below auth, so auth can use it). Each refuses with
 * the field error of the value that was asked about, at the caller's field path.
 */
@Injectable()
export class BanChecks {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Registration and e-mail change: a banned address (compared trimmed and lower-cased) → 400
   * `EMAIL_BANNED` at `path`. Nothing to check when there is no address.
   */
  async assertEmailAllowed(
    path: string,
    email: string | null | undefined,
    manager: EntityManager = this.db.manager,
  ): Promise<void> {
    if (!email) return;
    const rows = await manager.query<unknown[]>('SELECT 1 FROM email_bans WHERE email = $1', [
      normalizeEmail(email),
    ]);
    if (rows.length > 0) throw ApiError.field(path, FieldErrorCode.EmailBanned);
  }

  /**
   * Every place that accepts a phone number must call this before it verifies the number or
   * sends it an SMS (phone verification, SMS MFA enrolment and SMS login codes): a banned number
   * → 400 `PHONE_BANNED` at `path`. Numbers are E.164 (`+14155550123`), compared exactly.
   */
  async assertPhoneAllowed(
    path: string,
    phone: string | null | undefined,
    manager: EntityManager = this.db.manager,
  ): Promise<void> {
    if (!phone) return;
    const rows = await manager.query<unknown[]>('SELECT 1 FROM phone_bans WHERE phone = $1', [
      phone.trim(),
    ]);
    if (rows.length > 0) throw ApiError.field(path, FieldErrorCode.PhoneBanned);
  }

  /**
   * Whether a ban covers this (normalized) client address: one GiST lookup, uncached. The
   * request path asks IpBanGate, which caches the answer.
   */
  async isIpBanned(address: string): Promise<boolean> {
    const rows = await IP_BANNED.run(this.db, [address]);
    return rows.length > 0;
  }
}
