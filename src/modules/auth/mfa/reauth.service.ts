import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { SessionCaller } from '../../../common/auth/caller';
import { ApiError } from '../../../common/errors/api-error';
import { ErrorCode } from '../../../common/errors/error-code';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { UsersService } from '../../users/users.service';
import { PasswordService } from '../password.service';
import type { ReauthProof } from './dto/reauth.dto';
import { SecondFactors } from './second-factors';

/** How long a proof (a login or a re-authentication) spares the session another one. */
export const REAUTH_WINDOW_MS = 5 * 60_000;

export type ReauthMethod = 'password' | 'totp' | 'webauthn' | 'recent';

export interface ReauthOptions {
  /**
   * Whether a proof younger than REAUTH_WINDOW_MS on this session is enough. Off for changing
   * the e-mail address or the password, which always ask.
   */
  allowRecent: boolean;
  /** What the proof is for, in the message of a missing proof (e.g. "reset the client secret"). */
  purpose: string;
}

/**
 * The one re-authentication check of sensitive account routes: the password, or a second factor
 * once the account has MFA, or (where allowed) a recent proof on the same session. A successful
 * explicit proof renews the session's grace.
 */
@Injectable()
export class ReauthService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly users: UsersService,
    private readonly passwords: PasswordService,
    private readonly factors: SecondFactors,
  ) {}

  async confirm(
    caller: SessionCaller,
    proof: ReauthProof,
    options: ReauthOptions,
  ): Promise<ReauthMethod> {
    if (proof.mfa_method !== undefined) {
      await this.confirmSecondFactor(caller, proof.mfa_method, proof.mfa_code ?? '');
      return proof.mfa_method;
    }
    if (proof.password !== undefined) {
      const user = await this.users.getById(caller.userId);
      if (!(await this.passwords.verify(user.passwordHash, proof.password))) {
        throw ApiError.field('password', FieldErrorCode.PasswordDoesNotMatch);
      }
      await this.renew(caller);
      return 'password';
    }
    if (options.allowRecent && (await this.recentlyProven(caller))) return 'recent';
    throw ApiError.field(
      'password',
      FieldErrorCode.PasswordRequired,
      `Confirm it is you to ${options.purpose}: send "password", or "mfa_method" and "mfa_code" when the account has MFA.`,
    );
  }

  private async confirmSecondFactor(
    caller: SessionCaller,
    method: 'totp' | 'webauthn',
    code: string,
  ): Promise<void> {
    const ok = await this.db.transaction(async (manager) => {
      const user = await this.users.getById(caller.userId, manager);
      const factor = this.factors.get(method);
      if (!factor || !this.factors.methodsOf(user).includes(method)) {
        throw new ApiError(ErrorCode.MfaMethodUnavailable);
      }
      const verified = await factor.verify({
        user,
        proof: code,
        context: { kind: 'reauth', sessionId: caller.sessionId },
        manager,
      });
      if (verified) {
        await manager.query('UPDATE auth_sessions SET proven_at = now() WHERE id = $1', [
          caller.sessionId,
        ]);
      }
      return verified;
    });
    if (!ok) throw new ApiError(ErrorCode.InvalidMfaCode);
  }

  private async renew(caller: SessionCaller): Promise<void> {
    await this.db.query('UPDATE auth_sessions SET proven_at = now() WHERE id = $1', [
      caller.sessionId,
    ]);
  }

  private async recentlyProven(caller: SessionCaller): Promise<boolean> {
    const rows = await this.db.query<Array<{ recent: boolean }>>(
      `SELECT proven_at > now() - make_interval(secs => $2) AS recent FROM auth_sessions WHERE id = $1`,
      [caller.sessionId, REAUTH_WINDOW_MS / 1000],
    );
    return rows[0]?.recent === true;
  }
}
