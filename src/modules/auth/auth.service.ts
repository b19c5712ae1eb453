import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError, fieldError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { AppConfig } from '../../config/app.config';
import { MailerService } from '../../infra/mail/mailer.service';
import { ANONYMOUS_ACTOR } from '../audit/actor';
import { AuditLog } from '../audit/audit-log.service';
import { BanChecks } from '../bans/ban-checks.service';
import type { UserEntity } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { slugifyUsername } from '../users/username-slug';
import { AuthorizedIpsService } from './authorized-ips.service';
import { EmailTokensService } from './email-tokens.service';
import { IpAuthorizationService } from './ip-authorization.service';
import { LoginCompletion, type LoginMethod } from './login-completion.service';
import { LoginAttemptsLimiter } from './login-attempts.limiter';
import { LoginTicketsService } from './login-tickets.service';
import type { AuthLoginResult, AuthTokenWithUserIdResponse } from './auth.response';
import type { LoginDto } from './dto/login.dto';
import type { RegisterDto } from './dto/register.dto';
import { PasswordService } from './password.service';
import { SessionOrigin, SessionsService } from './sessions.service';

const MIN_AGE_YEARS = 13;

/** Whole years between a YYYY-MM-DD birth date and today (UTC); null for impossible dates. */
export function ageInYears(dateOfBirth: string, now = new Date()): number | null {
  const [y, m, d] = dateOfBirth.split('-').map(Number);
  const dob = new Date(Date.UTC(y, m - 1, d));
  if (dob.getUTCFullYear() !== y || dob.getUTCMonth() !== m - 1 || dob.getUTCDate() !== d)
    return null;
  if (y < 1900 || dob > now) return null;
  let age = now.getUTCFullYear() - y;
  if (now.getUTCMonth() < m - 1 || (now.getUTCMonth() === m - 1 && now.getUTCDate() < d)) age -= 1;
  return age;
}

/** Registration and password login; LoginCompletion is how every login ends. */
@Injectable()
export class AuthService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: AppConfig,
    private readonly users: UsersService,
    private readonly passwords: PasswordService,
    private readonly sessions: SessionsService,
    private readonly tickets: LoginTicketsService,
    private readonly ipAuthorization: IpAuthorizationService,
    private readonly authorizedIps: AuthorizedIpsService,
    private readonly logins: LoginCompletion,
    private readonly emailTokens: EmailTokensService,
    private readonly mailer: MailerService,
    private readonly attempts: LoginAttemptsLimiter,
    private readonly bans: BanChecks,
    private readonly audit: AuditLog,
  ) {}

  async register(dto: RegisterDto, origin: SessionOrigin): Promise<AuthTokenWithUserIdResponse> {
    if (this.config.passwordLoginDisabled) throw new ApiError(ErrorCode.SsoRequired);
    if (!this.config.registration) throw new ApiError(ErrorCode.RegistrationDisabled);
    const age = ageInYears(dto.date_of_birth);
    if (age === null) throw ApiError.field('date_of_birth', FieldErrorCode.DateOfBirthInvalid);
    if (age < MIN_AGE_YEARS) {
      throw ApiError.field(
        'date_of_birth',
        FieldErrorCode.DateOfBirthUnderage,
        `You must be at least ${MIN_AGE_YEARS} years old.`,
      );
    }
    const email = dto.email?.trim() || null;
    await this.bans.assertEmailAllowed('email', email);
    const username = dto.username ?? slugifyUsername(dto.global_name ?? '');
    // Hash before the transaction: argon2 is slow and must not hold a database lease.
    const passwordHash = dto.password ? await this.passwords.hash(dto.password) : null;
    const { result, verifyToken, user } = await this.db.transaction(async (manager) => {
      if (email && (await this.users.emailTaken(email, manager))) {
        throw ApiError.field('email', FieldErrorCode.EmailAlreadyRegistered);
      }
      const user = await this.users.create(
        {
          username,
          globalName: dto.global_name ?? null,
          email,
          passwordHash,
          dateOfBirth: dto.date_of_birth,
        },
        manager,
      );
      const { token } = await this.sessions.create(user.id, origin, manager);
      await this.authorizedIps.record(user.id, origin.ip, manager);
      const verifyToken = email
        ? await this.emailTokens.issue(user.id, 'verify', { email }, manager)
        : null;
      return { result: { token, user_id: user.id }, verifyToken, user };
    });
    if (email && verifyToken) {
      this.mailer.sendLater(email, 'verify', verifyToken, { username: user.username });
    }
    return result;
  }

  async login(dto: LoginDto, origin: SessionOrigin): Promise<AuthLoginResult> {
    if (this.config.passwordLoginDisabled) throw new ApiError(ErrorCode.SsoRequired);
    const email = dto.email.trim();
    const user = await this.users.findByEmail(email);
    const known = user ? await this.authorizedIps.isKnown(user.id, origin.ip) : false;
    await this.attempts.check(email, origin.ip, known);
    // Unknown e-mail and wrong password take the same time and give the same answer.
    const ok = await this.passwords.verify(user?.passwordHash ?? null, dto.password);
    if (!user || !ok) {
      await this.attempts.recordFailure(email, origin.ip);
      // No change to join: the entry stands alone. Never the password, nor an unknown address
      // (people type passwords into the e-mail field).
      await this.audit.record(this.db.manager, {
        actor: ANONYMOUS_ACTOR,
        action: 'auth.login.failed',
        targetType: user ? 'user' : null,
        targetId: user?.id ?? null,
        metadata: { reason: user ? 'wrong_password' : 'unknown_email' },
        ip: origin.ip,
      });
      throw this.invalidLogin();
    }
    await this.attempts.recordSuccess(email, origin.ip);
    // A second factor already proves more than a known IP would (ARCHITECTURE.md §6).
    if (!user.mfaEnabled && !known && this.ipAuthorization.applies(user, origin.ip)) {
      throw await this.ipAuthorization.challenge(user, origin);
    }
    return this.db.transaction(async (m) => {
      if (!user.mfaEnabled) return this.logins.complete(user.id, origin, { method: 'password' }, m);
      const result = await this.tickets.mfaRequired(user, origin, m);
      await this.logins.secondFactorRequired(user.id, origin, m);
      return result;
    });
  }

  /**
   * The end of a password set through an e-mailed link (reset, e-mail revert): an MFA ticket when
   * the account has a second factor, otherwise the login completes.
   */
  async completeLogin(
    user: UserEntity,
    origin: SessionOrigin,
    login: Extract<LoginMethod, { method: 'password_reset' | 'email_revert' }>,
    manager: EntityManager,
  ): Promise<AuthLoginResult> {
    if (user.mfaEnabled) return this.tickets.mfaRequired(user, origin, manager);
    return this.logins.complete(user.id, origin, login, manager);
  }

  private invalidLogin(): ApiError {
    return ApiError.form([
      fieldError('email', FieldErrorCode.InvalidLogin),
      fieldError('password', FieldErrorCode.InvalidLogin),
    ]);
  }
}
