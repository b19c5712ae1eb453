import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { sha256 } from '../../common/crypto/tokens';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { AttemptCounters } from '../../common/rate-limit/attempt-counters';
import { AppConfig } from '../../config/app.config';
import { MailerService } from '../../infra/mail/mailer.service';
import { userActor } from '../audit/actor';
import { AuditLog } from '../audit/audit-log.service';
import { UsersService } from '../users/users.service';
import type { AuthLoginResult } from './auth.response';
import { AuthService } from './auth.service';
import type { TokenAndPasswordDto } from './dto/email-flows.dto';
import { EmailTokensService } from './email-tokens.service';
import { rateLimited } from './login-attempts.limiter';
import { maskEmail } from './origin';
import { PasswordService } from './password.service';
import { SessionOrigin, SessionsService } from './sessions.service';

const sameEmail = (a: string | null | undefined, b: string | null | undefined) =>
  !!a && !!b && a.toLowerCase() === b.toLowerCase();

/** E-mail verification, password reset and e-mail revert (ARCHITECTURE.md §6: 24 h, 1 h, 48 h). */
/** Password-reset requests one address may receive within FORGOT_TARGET_WINDOW_MS. */
export const FORGOT_PER_TARGET = 5;
export const FORGOT_TARGET_WINDOW_MS = 15 * 60_000;

@Injectable()
export class EmailFlowsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly users: UsersService,
    private readonly passwords: PasswordService,
    private readonly sessions: SessionsService,
    private readonly emailTokens: EmailTokensService,
    private readonly mailer: MailerService,
    private readonly auth: AuthService,
    private readonly audit: AuditLog,
    private readonly config: AppConfig,
    private readonly counters: AttemptCounters,
  ) {}

  /** Marks the address verified; a token for an address the account no longer has is invalid. */
  async verify(token: string): Promise<void> {
    const userId = await this.db.transaction(async (m) => {
      const { userId, data } = await this.emailTokens.consume(token, 'verify', m);
      const user = await this.users.findById(userId, m);
      if (!user || !sameEmail(user.email, data?.email)) {
        throw new ApiError(ErrorCode.InvalidEmailToken);
      }
      await this.users.update(m, user.id, { emailVerified: true });
      return user.id;
    });
    this.users.forget(userId);
  }

  async resendVerification(userId: string): Promise<void> {
    const user = await this.users.getById(userId);
    if (!user.email) {
      throw ApiError.field('email', FieldErrorCode.EmailRequired);
    }
    if (user.emailVerified) return;
    const token = await this.emailTokens.issue(user.id, 'verify', { email: user.email });
    this.mailer.sendLater(user.email, 'verify', token, { username: user.username });
  }

  /**
   * Always succeeds, whether or not the address exists (no account enumeration) — up to
   * FORGOT_PER_TARGET requests per address within 15 minutes, whoever sends them (the route's
   * own bucket limits each sender), so nobody can flood a mailbox with reset mails. The limit
   * applies alike to addresses that have no account, so a 429 tells nothing either.
   */
  async forgot(email: string): Promise<void> {
    if (this.config.passwordLoginDisabled) throw new ApiError(ErrorCode.SsoRequired);
    if (this.config.rateLimits.enabled) {
      const target = sha256(email.trim().toLowerCase()).toString('hex');
      const sent = await this.counters.hit(`forgot-target:${target}`, FORGOT_TARGET_WINDOW_MS);
      if (sent.count > FORGOT_PER_TARGET) throw rateLimited(sent.ttlMs / 1000);
    }
    const user = await this.users.findByEmail(email.trim());
    if (!user?.email || user.bot) return;
    const token = await this.emailTokens.issue(user.id, 'reset', { email: user.email });
    this.mailer.sendLater(user.email, 'reset', token, { username: user.username });
  }

  /** Sets a new password, ends every session, and logs in (the mailbox proved ownership). */
  async reset(dto: TokenAndPasswordDto, origin: SessionOrigin): Promise<AuthLoginResult> {
    if (this.config.passwordLoginDisabled) throw new ApiError(ErrorCode.SsoRequired);
    const passwordHash = await this.passwords.hash(dto.password);
    let changed: string | undefined;
    const result = await this.db.transaction(async (m) => {
      const { userId, data } = await this.emailTokens.consume(dto.token, 'reset', m);
      changed = userId;
      const user = await this.users.findById(userId, m);
      if (!user || !sameEmail(user.email, data?.email)) {
        throw new ApiError(ErrorCode.InvalidEmailToken);
      }
      user.passwordHash = passwordHash;
      user.passwordChangedAt = new Date();
      user.emailVerified = true;
      await this.users.update(m, user.id, {
        passwordHash,
        passwordChangedAt: user.passwordChangedAt,
        emailVerified: true,
      });
      await this.sessions.revokeAllForUser(user.id, undefined, m);
      // The mailbox proved ownership: the user acts.
      await this.audit.record(m, {
        actor: userActor(user.id),
        action: 'auth.password.reset',
        targetType: 'user',
        targetId: user.id,
        metadata: { sessions_ended: true },
        ip: origin.ip,
      });
      return this.auth.completeLogin(user, origin, { method: 'password_reset' }, m);
    });
    if (changed) this.users.forget(changed);
    return result;
  }

  /** Undoes an e-mail change from the old mailbox: old address back, new password, all sessions ended. */
  async revert(dto: TokenAndPasswordDto, origin: SessionOrigin): Promise<AuthLoginResult> {
    const passwordHash = await this.passwords.hash(dto.password);
    let changed: string | undefined;
    const result = await this.db.transaction(async (m) => {
      const { userId, data } = await this.emailTokens.consume(dto.token, 'email_revert', m);
      changed = userId;
      const user = await this.users.findById(userId, m);
      const oldEmail = data?.old_email;
      if (!user || !oldEmail) throw new ApiError(ErrorCode.InvalidEmailToken);
      const holder = await this.users.findByEmail(oldEmail, m);
      if (holder && holder.id !== user.id) {
        throw ApiError.field(
          'email',
          FieldErrorCode.EmailAlreadyRegistered,
          'The old address now belongs to another account.',
        );
      }
      Object.assign(user, {
        email: oldEmail,
        emailVerified: true,
        passwordHash,
        passwordChangedAt: new Date(),
      });
      await this.users.update(m, user.id, {
        email: user.email,
        emailVerified: true,
        passwordHash,
        passwordChangedAt: user.passwordChangedAt,
      });
      await this.sessions.revokeAllForUser(user.id, undefined, m);
      await this.audit.record(m, {
        actor: userActor(user.id),
        action: 'user.email.revert',
        targetType: 'user',
        targetId: user.id,
        metadata: { restored_email: maskEmail(oldEmail), sessions_ended: true },
        ip: origin.ip,
      });
      return this.auth.completeLogin(user, origin, { method: 'email_revert' }, m);
    });
    if (changed) this.users.forget(changed);
    return result;
  }
}
