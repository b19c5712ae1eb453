import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { SessionCaller } from '../../common/auth/caller';
import { ApiError } from '../../common/errors/api-error';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { MailerService } from '../../infra/mail/mailer.service';
import type { AuditContext } from '../audit/audit-context';
import { AuditLog } from '../audit/audit-log.service';
import { BanChecks } from '../bans/ban-checks.service';
import { UserEntity } from '../users/user.entity';
import { toUserPrivate } from '../users/user.mapper';
import type { UserPrivateResponse } from '../users/user.response';
import { UsersService } from '../users/users.service';
import type { UpdateAccountDto } from './dto/update-account.dto';
import { EmailTokensService } from './email-tokens.service';
import { maskEmail } from './origin';
import { PasswordService } from './password.service';
import { ReauthService } from './mfa/reauth.service';
import { SessionsService } from './sessions.service';

interface PendingMail {
  to: string;
  template: 'verify' | 'email_revert';
  token: string;
  username: string;
}

/**
 * `PATCH /users/@me`. It lives in the auth module because changing the e-mail or password is a
 * credential operation (password check, e-mailed tokens, sessions) and `users` sits below `auth`.
 */
@Injectable()
export class AccountService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly users: UsersService,
    private readonly passwords: PasswordService,
    private readonly sessions: SessionsService,
    private readonly emailTokens: EmailTokensService,
    private readonly mailer: MailerService,
    private readonly bans: BanChecks,
    private readonly audit: AuditLog,
    private readonly reauth: ReauthService,
  ) {}

  async update(
    caller: SessionCaller,
    dto: UpdateAccountDto,
    context: AuditContext,
  ): Promise<UserPrivateResponse> {
    const current = await this.users.getById(caller.userId);
    const newEmail = dto.email?.trim();
    const emailChanges = newEmail !== undefined && newEmail !== current.email;
    const passwordChanges = dto.new_password !== undefined;
    if (emailChanges || passwordChanges) {
      await this.reauth.confirm(caller, dto, {
        allowRecent: false,
        purpose: 'change the e-mail address or password',
      });
    }
    if (emailChanges) await this.bans.assertEmailAllowed('email', newEmail);
    const newHash = passwordChanges ? await this.passwords.hash(dto.new_password as string) : null;
    const mails: PendingMail[] = [];
    const user = await this.db.transaction(async (m) => {
      const user = await this.users.getById(caller.userId, m);
      const patch: Partial<UserEntity> = {};
      if (dto.username !== undefined && dto.username !== user.username) {
        const discriminator = await this.users.discriminatorForRename(user, dto.username, m);
        if (!discriminator) {
          throw ApiError.field('username', FieldErrorCode.UsernameTooManyUsers);
        }
        patch.username = dto.username;
        patch.discriminator = discriminator;
      }
      if (dto.global_name !== undefined) patch.globalName = dto.global_name;
      if (emailChanges && newEmail) {
        const holder = await this.users.findByEmail(newEmail, m);
        if (holder && holder.id !== user.id) {
          throw ApiError.field('email', FieldErrorCode.EmailAlreadyRegistered);
        }
        patch.email = newEmail;
        patch.emailVerified = false;
        const name = patch.username ?? user.username;
        const verify = await this.emailTokens.issue(user.id, 'verify', { email: newEmail }, m);
        mails.push({ to: newEmail, template: 'verify', token: verify, username: name });
        if (user.email) {
          const revert = await this.emailTokens.issue(
            user.id,
            'email_revert',
            { old_email: user.email, new_email: newEmail },
            m,
          );
          mails.push({ to: user.email, template: 'email_revert', token: revert, username: name });
        }
      }
      if (newHash) {
        patch.passwordHash = newHash;
        patch.passwordChangedAt = new Date();
        // A new password ends every other session; this one stays.
        await this.sessions.revokeAllForUser(user.id, caller.sessionId, m);
      }
      if (Object.keys(patch).length > 0) {
        await this.users.update(m, user.id, patch);
      }
      // Addresses are masked: the log says that and roughly where, not a second copy of them.
      const audited = { ...context, targetType: 'user', targetId: user.id };
      if (patch.email) {
        await this.audit.record(m, {
          ...audited,
          action: 'user.email.change',
          metadata: {
            old_email: user.email ? maskEmail(user.email) : null,
            new_email: maskEmail(patch.email),
          },
        });
      }
      if (newHash) {
        await this.audit.record(m, {
          ...audited,
          action: 'user.password.change',
          metadata: { other_sessions_ended: true },
        });
      }
      return Object.assign(user, patch);
    });
    this.users.forget(user.id);
    for (const mail of mails) {
      this.mailer.sendLater(mail.to, mail.template, mail.token, { username: mail.username });
    }
    return toUserPrivate(user);
  }
}
