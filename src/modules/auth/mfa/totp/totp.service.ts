import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { authenticator } from 'otplib';
import { DataSource, type EntityManager } from 'typeorm';
import type { SessionCaller } from '../../../../common/auth/caller';
import { decryptSecret, encryptSecret, hmac, randomString } from '../../../../common/crypto/tokens';
import { ApiError } from '../../../../common/errors/api-error';
import { ErrorCode } from '../../../../common/errors/error-code';
import { AppConfig } from '../../../../config/app.config';
import type { AuditContext } from '../../../audit/audit-context';
import { AuditLog } from '../../../audit/audit-log.service';
import { UsersService } from '../../../users/users.service';
import type { ReauthProof } from '../dto/reauth.dto';
import { MfaFactorsService } from '../mfa-factors.service';
import { recordOwnAccountChange } from '../account-audit';
import { ReauthService } from '../reauth.service';
import {
  AuthenticatorType,
  SecondFactors,
  type SecondFactor,
  type SecondFactorCheck,
} from '../second-factors';
import type { MfaBackupCodesResponse, TotpSetupResponse } from './totp.response';

/** RFC 6238 as the design fixes it: SHA-1, 6 digits, 30-second steps, ±1 step accepted. */
const STEP_MS = 30_000;
const WINDOW = 1;
export const BACKUP_CODE_COUNT = 10;
// No 0/o, 1/l/i: codes are read off paper.
const BACKUP_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** `xxxx-xxxx`, as shown; accepted in any case, with or without the dash or spaces. */
function normalizeBackupCode(code: string): string | null {
  const bare = code.toLowerCase().replace(/[\s-]/g, '');
  return /^[a-z0-9]{8}$/.test(bare) ? bare : null;
}

/**
 * TOTP and backup codes: enrolment (set-up, confirmation by a first code, disabling, new backup
 * codes) and the `totp` second factor, which takes a current code or an unused backup code.
 */
@Injectable()
export class TotpService implements SecondFactor, OnModuleInit {
  readonly method = 'totp' as const;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: AppConfig,
    private readonly users: UsersService,
    private readonly reauth: ReauthService,
    private readonly factors: MfaFactorsService,
    private readonly registry: SecondFactors,
    private readonly audit: AuditLog,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  /** A new seed for the caller, pending until confirmed; replaces an earlier pending one. */
  async setup(caller: SessionCaller, proof: ReauthProof): Promise<TotpSetupResponse> {
    await this.reauth.confirm(caller, proof, { allowRecent: true, purpose: 'set up TOTP' });
    const user = await this.users.getById(caller.userId);
    if (user.authenticatorTypes.includes(AuthenticatorType.Totp)) {
      throw new ApiError(ErrorCode.TotpAlreadyEnabled);
    }
    const secret = authenticator.generateSecret(20);
    await this.db.query(
      `INSERT INTO mfa_totp (user_id, secret_enc) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE
         SET secret_enc = EXCLUDED.secret_enc, confirmed_at = NULL, last_used_step = NULL, created_at = now()`,
      [user.id, encryptSecret(this.config.secretKey, secret)],
    );
    const label = user.email ?? `${user.username}#${user.discriminator}`;
    return { secret, uri: authenticator.keyuri(label, this.config.webauthn.rpName, secret) };
  }

  /** Confirms the pending seed with its first code: TOTP is on, with 10 new backup codes. */
  async enable(
    caller: SessionCaller,
    code: string,
    audit: AuditContext,
  ): Promise<MfaBackupCodesResponse> {
    const codes = await this.db.transaction(async (m) => {
      const rows = await m.query<Array<{ secret_enc: string; confirmed_at: Date | null }>>(
        'SELECT secret_enc, confirmed_at FROM mfa_totp WHERE user_id = $1 FOR UPDATE',
        [caller.userId],
      );
      const row = rows[0];
      if (!row) throw new ApiError(ErrorCode.TotpNotEnabled);
      if (row.confirmed_at) throw new ApiError(ErrorCode.TotpAlreadyEnabled);
      const step = this.matchingStep(decryptSecret(this.config.secretKey, row.secret_enc), code);
      if (step === null) throw new ApiError(ErrorCode.InvalidMfaCode);
      await m.query(
        'UPDATE mfa_totp SET confirmed_at = now(), last_used_step = $2 WHERE user_id = $1',
        [caller.userId, step],
      );
      await this.factors.add(caller.userId, AuthenticatorType.Totp, m);
      const fresh = await this.replaceBackupCodes(caller.userId, m);
      await recordOwnAccountChange(this.audit, m, audit, caller.userId, 'mfa.totp.enable');
      return fresh;
    });
    return { backup_codes: codes.map((c) => ({ code: c, consumed: false })) };
  }

  /** Turns TOTP off (and SMS, which needs it); the backup codes go too. */
  async disable(caller: SessionCaller, proof: ReauthProof, audit: AuditContext): Promise<void> {
    await this.reauth.confirm(caller, proof, { allowRecent: false, purpose: 'disable TOTP' });
    await this.db.transaction(async (m) => {
      const user = await this.users.getById(caller.userId, m);
      if (!user.authenticatorTypes.includes(AuthenticatorType.Totp)) {
        throw new ApiError(ErrorCode.TotpNotEnabled);
      }
      await m.query('DELETE FROM mfa_totp WHERE user_id = $1', [caller.userId]);
      await m.query('DELETE FROM mfa_backup_codes WHERE user_id = $1', [caller.userId]);
      await this.factors.remove(caller.userId, [AuthenticatorType.Totp, AuthenticatorType.Sms], m);
      await recordOwnAccountChange(this.audit, m, audit, caller.userId, 'mfa.totp.disable');
    });
  }

  /** 10 new backup codes; the old ones stop working. */
  async regenerateBackupCodes(
    caller: SessionCaller,
    proof: ReauthProof,
    audit: AuditContext,
  ): Promise<MfaBackupCodesResponse> {
    await this.reauth.confirm(caller, proof, {
      allowRecent: true,
      purpose: 'generate new backup codes',
    });
    const codes = await this.db.transaction(async (m) => {
      const user = await this.users.getById(caller.userId, m);
      if (!user.authenticatorTypes.includes(AuthenticatorType.Totp)) {
        throw new ApiError(ErrorCode.TotpNotEnabled);
      }
      const fresh = await this.replaceBackupCodes(caller.userId, m);
      await recordOwnAccountChange(
        this.audit,
        m,
        audit,
        caller.userId,
        'mfa.backup_codes.regenerate',
      );
      return fresh;
    });
    return { backup_codes: codes.map((c) => ({ code: c, consumed: false })) };
  }

  /**
   * The `totp` factor: a code of a step later than the last accepted one (each code works once),
   * or an unused backup code (spent). The step or code is spent through `check.manager`.
   */
  async verify({ user, proof, manager }: SecondFactorCheck): Promise<boolean> {
    if (typeof proof !== 'string') return false;
    const code = proof.trim();
    if (/^\d{6}$/.test(code)) return this.verifyTotp(user.id, code, manager);
    const backup = normalizeBackupCode(code);
    if (!backup) return false;
    const spent = await manager.query<[unknown[], number]>(
      `UPDATE mfa_backup_codes SET consumed_at = now()
       WHERE user_id = $1 AND code_hash = $2 AND consumed_at IS NULL RETURNING 1`,
      [user.id, this.hashBackupCode(backup)],
    );
    return spent[1] === 1;
  }

  private async verifyTotp(userId: string, code: string, manager: EntityManager): Promise<boolean> {
    const rows = await manager.query<Array<{ secret_enc: string }>>(
      'SELECT secret_enc FROM mfa_totp WHERE user_id = $1 AND confirmed_at IS NOT NULL',
      [userId],
    );
    if (!rows[0]) return false;
    const step = this.matchingStep(decryptSecret(this.config.secretKey, rows[0].secret_enc), code);
    if (step === null) return false;
    // The replay guard: only a later step than the last accepted one; concurrent uses of one
    // code serialize on the row and the second finds the step taken.
    const claimed = await manager.query<[unknown[], number]>(
      `UPDATE mfa_totp SET last_used_step = $2
       WHERE user_id = $1 AND (last_used_step IS NULL OR last_used_step < $2) RETURNING 1`,
      [userId, step],
    );
    return claimed[1] === 1;
  }

  /** The step (window ±1) whose code this is, or null. One clock reading for both. */
  private matchingStep(secret: string, code: string): number | null {
    const now = Date.now();
    const delta = authenticator.clone({ window: WINDOW, epoch: now }).checkDelta(code, secret);
    return delta === null ? null : Math.floor(now / STEP_MS) + delta;
  }

  private async replaceBackupCodes(userId: string, m: EntityManager): Promise<string[]> {
    const codes = Array.from({ length: BACKUP_CODE_COUNT }, () => {
      const raw = randomString(8, BACKUP_ALPHABET);
      return `${raw.slice(0, 4)}-${raw.slice(4)}`;
    });
    await m.query('DELETE FROM mfa_backup_codes WHERE user_id = $1', [userId]);
    await m.query(
      `INSERT INTO mfa_backup_codes (user_id, code_hash)
       SELECT $1, h FROM unnest($2::bytea[]) AS h`,
      [userId, codes.map((c) => this.hashBackupCode(normalizeBackupCode(c) as string))],
    );
    return codes;
  }

  private hashBackupCode(normalized: string): Buffer {
    return Buffer.from(hmac(this.config.secretKey, `backup-code:${normalized}`), 'base64url');
  }
}
