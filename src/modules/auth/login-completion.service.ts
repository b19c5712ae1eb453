import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { userActor } from '../audit/actor';
import { AuditLog } from '../audit/audit-log.service';
import type { AuthTokenWithUserIdResponse } from './auth.response';
import { AuthorizedIpsService } from './authorized-ips.service';
import type { SecondFactorMethod } from './mfa/second-factors';
import { SessionsService, type SessionOrigin } from './sessions.service';

/** How the login was proven: what its session counts as and what its audit entry says. */
export type LoginMethod =
  | { method: 'password' }
  | { method: 'ip_authorization' }
  | { method: 'mfa'; factor: SecondFactorMethod }
  | { method: 'webauthn'; credentialId: string }
  | { method: 'sso'; issuer: string; account: 'linked' | 'matched_email' | 'provisioned' }
  | { method: 'handoff' }
  | { method: 'password_reset' }
  | { method: 'email_revert' };

type LoginAuditEntry = { action: string; metadata: Record<string, unknown> } | null;

/**
 * The audit entry of each kind of login. An MFA login already has its `auth.login` entry from
 * the password step (`mfa_required: true`), so its second step is `auth.login.mfa`. A handoff
 * has none: the new device proved nothing, and the session that vouched for it has its own. A
 * password reset or an e-mail revert is recorded by the caller, as the change it is
 * (`auth.password.reset`, `user.email.revert`), in the same transaction.
 */
function auditEntryOf(login: LoginMethod): LoginAuditEntry {
  switch (login.method) {
    case 'password':
    case 'ip_authorization':
      return { action: 'auth.login', metadata: { method: login.method, mfa_required: false } };
    case 'mfa':
      return { action: 'auth.login.mfa', metadata: { method: login.factor } };
    case 'webauthn':
      return {
        action: 'auth.login',
        metadata: { method: 'webauthn', credential_id: login.credentialId },
      };
    case 'sso':
      return {
        action: 'auth.login',
        metadata: { method: 'sso', issuer: login.issuer, account: login.account },
      };
    case 'handoff':
    case 'password_reset':
    case 'email_revert':
      return null;
  }
}

/**
 * What every successful login ends with, whatever proved it (password, an MFA ticket and a
 * factor, a passkey, SSO, an IP-authorization poll, a device handoff, a password set through an
 * e-mailed link): the session, the address remembered as known (`authorized_ips`) and the audit
 * entry, all in the caller's transaction.
 */
@Injectable()
export class LoginCompletion {
  constructor(
    private readonly sessions: SessionsService,
    private readonly authorizedIps: AuthorizedIpsService,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Mints the session of `userId` for `origin`. A handed-off session is the exception
   * (ARCHITECTURE.md §6): its holder proved nothing themselves, so it is not a fresh proof
   * (`proven_at` null) and its address does not become known.
   */
  async complete(
    userId: string,
    origin: SessionOrigin,
    login: LoginMethod,
    manager: EntityManager,
  ): Promise<AuthTokenWithUserIdResponse> {
    const proven = login.method !== 'handoff';
    const { token } = await this.sessions.create(userId, origin, manager, { proven });
    if (proven) await this.authorizedIps.record(userId, origin.ip, manager);
    const entry = auditEntryOf(login);
    if (entry) await this.record(userId, origin, entry, manager);
    return { token, user_id: userId };
  }

  /** A password login that now waits for the second factor: no session yet, but an entry. */
  async secondFactorRequired(
    userId: string,
    origin: SessionOrigin,
    manager: EntityManager,
  ): Promise<void> {
    await this.record(
      userId,
      origin,
      { action: 'auth.login', metadata: { method: 'password', mfa_required: true } },
      manager,
    );
  }

  private async record(
    userId: string,
    origin: SessionOrigin,
    entry: NonNullable<LoginAuditEntry>,
    manager: EntityManager,
  ): Promise<void> {
    await this.audit.record(manager, {
      actor: userActor(userId),
      action: entry.action,
      targetType: 'user',
      targetId: userId,
      metadata: entry.metadata,
      ip: origin.ip,
    });
  }
}
