import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomInt } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import type { SessionCaller } from '../../../../common/auth/caller';
import { ServiceDiscoveryRegistry } from '../../../../common/discovery/service-discovery.registry';
import { constantTimeEqual, hmac } from '../../../../common/crypto/tokens';
import { ApiError } from '../../../../common/errors/api-error';
import { ErrorCode } from '../../../../common/errors/error-code';
import { sqlSweep, SweeperService } from '../../../../common/maintenance/sweeper.service';
import { AppConfig } from '../../../../config/app.config';
import { SMS_PORT, type SmsPort } from '../../../../infra/sms/sms.port';
import type { AuditContext } from '../../../audit/audit-context';
import { AuditLog } from '../../../audit/audit-log.service';
import { BanChecks } from '../../../bans/ban-checks.service';
import { maskPhone } from '../../../users/user.mapper';
import { UsersService } from '../../../users/users.service';
import type { ReauthProof } from '../dto/reauth.dto';
import { MfaFactorsService } from '../mfa-factors.service';
import { MfaLoginService } from '../mfa-login.service';
import { recordOwnAccountChange } from '../account-audit';
import { ReauthService } from '../reauth.service';
import {
  AuthenticatorType,
  SecondFactors,
  type SecondFactor,
  type SecondFactorCheck,
} from '../second-factors';
import type { SmsSentResponse } from './sms-mfa.response';
import type { SmsCodePurpose } from './mfa-sms-code.entity';

/** An SMS code lives 5 minutes and survives 5 wrong tries. */
export const SMS_CODE_TTL_SECONDS = 300;
const SMS_CODE_MAX_ATTEMPTS = 5;

interface CodeRow {
  phone: string;
  code_hash: Buffer;
}

type Check = { kind: 'ok'; phone: string } | { kind: 'wrong' } | { kind: 'none' };

/**
 * SMS as a second factor: a phone number verified by a texted code, SMS MFA on top of TOTP (as
 * the peers require), and the `sms` factor of the login step (a code texted for one MFA ticket).
 * Codes are stored as keyed hashes; texts go through the SMS port (log or Twilio-compatible).
 */
@Injectable()
export class SmsMfaService implements SecondFactor, OnModuleInit {
  readonly method = 'sms' as const;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(SMS_PORT) private readonly sms: SmsPort,
    private readonly config: AppConfig,
    private readonly users: UsersService,
    private readonly reauth: ReauthService,
    private readonly factors: MfaFactorsService,
    private readonly mfaLogin: MfaLoginService,
    private readonly bans: BanChecks,
    private readonly audit: AuditLog,
    private readonly registry: SecondFactors,
    private readonly discovery: ServiceDiscoveryRegistry,
    private readonly sweeper: SweeperService,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
    this.discovery.setFeatures({ sms_mfa: true });
    this.sweeper.register(
      sqlSweep(
        'mfa_sms_codes',
        this.db,
        "DELETE FROM mfa_sms_codes WHERE expires_at < now() - interval '1 day'",
      ),
    );
  }

  /** Texts a verification code to a new phone number (not yet the account's). */
  async addPhone(
    caller: SessionCaller,
    proof: ReauthProof,
    rawPhone: string,
  ): Promise<SmsSentResponse> {
    await this.reauth.confirm(caller, proof, { allowRecent: true, purpose: 'add a phone number' });
    const phone = rawPhone.trim();
    await this.bans.assertPhoneAllowed('phone', phone);
    return this.sendCode(caller.userId, 'phone_verify', phone, null);
  }

  /** The texted code makes the number the account's phone. */
  async verifyPhone(
    caller: SessionCaller,
    code: string,
    audit: AuditContext,
  ): Promise<SmsSentResponse> {
    const outcome = await this.db.transaction(async (m): Promise<Check> => {
      const checked = await this.checkCode(m, caller.userId, 'phone_verify', null, code);
      if (checked.kind !== 'ok') return checked;
      await this.bans.assertPhoneAllowed('phone', checked.phone, m);
      await this.users.update(m, caller.userId, { phone: checked.phone });
      await recordOwnAccountChange(this.audit, m, audit, caller.userId, 'mfa.phone.verify');
      return checked;
    });
    if (outcome.kind !== 'ok') throw new ApiError(ErrorCode.InvalidMfaCode);
    this.users.forget(caller.userId);
    return { phone: maskPhone(outcome.phone) as string };
  }

  /** Removes the account's phone, and with it SMS MFA. */
  async removePhone(caller: SessionCaller, proof: ReauthProof, audit: AuditContext): Promise<void> {
    await this.reauth.confirm(caller, proof, {
      allowRecent: false,
      purpose: 'remove the phone number',
    });
    await this.db.transaction(async (m) => {
      const user = await this.users.getById(caller.userId, m);
      if (!user.phone) throw new ApiError(ErrorCode.PhoneRequired);
      await this.users.update(m, caller.userId, { phone: null });
      await m.query('DELETE FROM mfa_sms_codes WHERE user_id = $1', [caller.userId]);
      await this.factors.remove(caller.userId, [AuthenticatorType.Sms], m);
      await recordOwnAccountChange(this.audit, m, audit, caller.userId, 'mfa.phone.remove');
    });
    this.users.forget(caller.userId);
  }

  /** SMS as a login factor: needs a verified phone and TOTP. */
  async enable(caller: SessionCaller, proof: ReauthProof, audit: AuditContext): Promise<void> {
    await this.reauth.confirm(caller, proof, { allowRecent: true, purpose: 'enable SMS MFA' });
    await this.db.transaction(async (m) => {
      const user = await this.users.getById(caller.userId, m);
      if (!user.phone) throw new ApiError(ErrorCode.PhoneRequired);
      if (!user.authenticatorTypes.includes(AuthenticatorType.Totp)) {
        throw new ApiError(ErrorCode.TotpNotEnabled);
      }
      await this.factors.add(caller.userId, AuthenticatorType.Sms, m);
      await recordOwnAccountChange(this.audit, m, audit, caller.userId, 'mfa.sms.enable');
    });
  }

  async disable(caller: SessionCaller, proof: ReauthProof, audit: AuditContext): Promise<void> {
    await this.reauth.confirm(caller, proof, { allowRecent: false, purpose: 'disable SMS MFA' });
    await this.db.transaction(async (m) => {
      const user = await this.users.getById(caller.userId, m);
      if (!user.authenticatorTypes.includes(AuthenticatorType.Sms)) {
        throw new ApiError(ErrorCode.MfaMethodUnavailable);
      }
      await this.factors.remove(caller.userId, [AuthenticatorType.Sms], m);
      await recordOwnAccountChange(this.audit, m, audit, caller.userId, 'mfa.sms.disable');
    });
  }

  /** Texts a login code for this MFA ticket (a newer one replaces it). */
  async sendLoginCode(rawTicket: string): Promise<SmsSentResponse> {
    const { ticket, user } = await this.mfaLogin.ticketUser(rawTicket, 'sms');
    if (!user.phone) throw new ApiError(ErrorCode.PhoneRequired);
    await this.bans.assertPhoneAllowed('phone', user.phone);
    return this.sendCode(user.id, 'login', user.phone, ticket.id);
  }

  /** The `sms` factor: the code texted for this ticket (not offered for re-authentication). */
  async verify({ user, proof, context, manager }: SecondFactorCheck): Promise<boolean> {
    if (context.kind !== 'login' || typeof proof !== 'string') return false;
    const checked = await this.checkCode(manager, user.id, 'login', context.ticketId, proof);
    return checked.kind === 'ok';
  }

  private async sendCode(
    userId: string,
    purpose: SmsCodePurpose,
    phone: string,
    ticketId: string | null,
  ): Promise<SmsSentResponse> {
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await this.db.query(
      `INSERT INTO mfa_sms_codes (user_id, purpose, ticket_id, phone, code_hash, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))
       ON CONFLICT (user_id, purpose) DO UPDATE SET
         ticket_id = EXCLUDED.ticket_id, phone = EXCLUDED.phone, code_hash = EXCLUDED.code_hash,
         attempts = 0, expires_at = EXCLUDED.expires_at, created_at = now()`,
      [userId, purpose, ticketId, phone, this.hash(userId, purpose, code), SMS_CODE_TTL_SECONDS],
    );
    await this.sms.send({
      to: phone,
      purpose,
      body: `Your ${this.config.webauthn.rpName} code is ${code}. It expires in 5 minutes. Do not share it.`,
    });
    return { phone: maskPhone(phone) as string };
  }

  /** Checks a code against the live one (spent when right, counted when wrong). */
  private async checkCode(
    m: EntityManager,
    userId: string,
    purpose: SmsCodePurpose,
    ticketId: string | null,
    code: string,
  ): Promise<Check> {
    const rows = await m.query<CodeRow[]>(
      `SELECT phone, code_hash FROM mfa_sms_codes
       WHERE user_id = $1 AND purpose = $2 AND ticket_id IS NOT DISTINCT FROM $3
         AND expires_at > now() AND attempts < $4
       FOR UPDATE`,
      [userId, purpose, ticketId, SMS_CODE_MAX_ATTEMPTS],
    );
    const row = rows[0];
    if (!row) return { kind: 'none' };
    const digits = code.trim();
    if (
      /^\d{6}$/.test(digits) &&
      constantTimeEqual(row.code_hash, this.hash(userId, purpose, digits))
    ) {
      await m.query('DELETE FROM mfa_sms_codes WHERE user_id = $1 AND purpose = $2', [
        userId,
        purpose,
      ]);
      return { kind: 'ok', phone: row.phone };
    }
    await m.query(
      'UPDATE mfa_sms_codes SET attempts = attempts + 1 WHERE user_id = $1 AND purpose = $2',
      [userId, purpose],
    );
    return { kind: 'wrong' };
  }

  private hash(userId: string, purpose: SmsCodePurpose, code: string): Buffer {
    return Buffer.from(
      hmac(this.config.secretKey, `sms:${userId}:${purpose}:${code}`),
      'base64url',
    );
  }
}
