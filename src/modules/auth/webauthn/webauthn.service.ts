import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { DataSource, type EntityManager } from 'typeorm';
import type { SessionCaller } from '../../../common/auth/caller';
import { sha256 } from '../../../common/crypto/tokens';
import { ServiceDiscoveryRegistry } from '../../../common/discovery/service-discovery.registry';
import { ApiError } from '../../../common/errors/api-error';
import { ErrorCode } from '../../../common/errors/error-code';
import { sqlSweep, SweeperService } from '../../../common/maintenance/sweeper.service';
import { SnowflakeService } from '../../../common/snowflake/snowflake.service';
import { AppConfig } from '../../../config/app.config';
import type { AuditContext } from '../../audit/audit-context';
import { AuditLog } from '../../audit/audit-log.service';
import type { UserEntity } from '../../users/user.entity';
import { UsersService } from '../../users/users.service';
import type { AuthTokenWithUserIdResponse } from '../auth.response';
import { LoginCompletion } from '../login-completion.service';
import { recordOwnAccountChange } from '../mfa/account-audit';
import type { ReauthProof } from '../mfa/dto/reauth.dto';
import { MfaFactorsService } from '../mfa/mfa-factors.service';
import { MfaLoginService } from '../mfa/mfa-login.service';
import { ReauthService } from '../mfa/reauth.service';
import {
  AuthenticatorType,
  SecondFactors,
  type SecondFactor,
  type SecondFactorCheck,
} from '../mfa/second-factors';
import type { SessionOrigin } from '../sessions.service';
import type { WebAuthnCredentialResponse } from './webauthn.response';
import type { WebAuthnChallengePurpose } from './webauthn-challenge.entity';
import { WebAuthnCredentialEntity } from './webauthn-credential.entity';

/**
 * @simplewebauthn/server, loaded on first use: loading it is ~80 ms of every start (a tenth of a
 * restart) and only WebAuthn ceremonies need it.
 */
let simpleWebAuthnModule: Promise<typeof import('@simplewebauthn/server')> | undefined;
const simpleWebAuthn = () => (simpleWebAuthnModule ??= import('@simplewebauthn/server'));

export const MAX_WEBAUTHN_CREDENTIALS = 10;
const CHALLENGE_TTL_MS = 5 * 60_000;

/** What a challenge is bound to; a response is accepted only in the same context. */
interface ChallengeBinding {
  purpose: WebAuthnChallengePurpose;
  userId: string | null;
  ticketId: string | null;
  sessionId: string | null;
}

/** A client's `{challenge, response}`, before it is trusted. */
interface Assertion {
  challenge: string;
  response: AuthenticationResponseJSON;
}

function assertionOf(proof: unknown): Assertion | null {
  let value = proof;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (typeof value !== 'object' || value === null) return null;
  const { challenge, response } = value as Record<string, unknown>;
  if (typeof challenge !== 'string' || typeof response !== 'object' || response === null) {
    return null;
  }
  const id = (response as Record<string, unknown>).id;
  if (typeof id !== 'string' || id.length === 0 || id.length > 1024) return null;
  return { challenge, response: response as unknown as AuthenticationResponseJSON };
}

const toResponse = (c: WebAuthnCredentialEntity): WebAuthnCredentialResponse => ({
  id: c.id,
  name: c.name,
  created_at: c.createdAt.toISOString(),
  last_used_at: c.lastUsedAt?.toISOString() ?? null,
});

/**
 * WebAuthn with @simplewebauthn/server: credentials (registration, list, rename, delete), the
 * `webauthn` second factor (MFA login step and re-authentication), and passwordless login with
 * discoverable credentials. Every challenge is generated here and stored as a hash with what it is
 * bound to; a response is checked against the stored challenge it names, never against the one
 * in its own clientDataJSON alone, and spends it.
 */
@Injectable()
export class WebAuthnService implements SecondFactor, OnModuleInit {
  readonly method = 'webauthn' as const;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: AppConfig,
    private readonly snowflakes: SnowflakeService,
    private readonly users: UsersService,
    private readonly reauth: ReauthService,
    private readonly factors: MfaFactorsService,
    private readonly mfaLogin: MfaLoginService,
    private readonly logins: LoginCompletion,
    private readonly audit: AuditLog,
    private readonly registry: SecondFactors,
    private readonly discovery: ServiceDiscoveryRegistry,
    private readonly sweeper: SweeperService,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
    this.discovery.setFeatures({ webauthn: true, passwordless_webauthn: true });
    this.discovery.setLimits({ webauthn_max_credentials: MAX_WEBAUTHN_CREDENTIALS });
    this.sweeper.register(
      sqlSweep(
        'webauthn_challenges',
        this.db,
        "DELETE FROM webauthn_challenges WHERE expires_at < now() - interval '1 day'",
      ),
    );
  }

  // ---- credentials of the calling user ----

  async registrationOptions(
    caller: SessionCaller,
    proof: ReauthProof,
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    await this.reauth.confirm(caller, proof, {
      allowRecent: true,
      purpose: 'register a WebAuthn credential',
    });
    const user = await this.users.getById(caller.userId);
    const existing = await this.credentialsOf(user.id);
    if (existing.length >= MAX_WEBAUTHN_CREDENTIALS) {
      throw new ApiError(ErrorCode.MaxWebAuthnCredentials);
    }
    const options = await (
      await simpleWebAuthn()
    ).generateRegistrationOptions({
      rpName: this.config.webauthn.rpName,
      rpID: this.config.webauthn.rpId,
      userName: user.email ?? user.username,
      userDisplayName: user.globalName ?? user.username,
      // The user handle: the user's id, so a passwordless assertion names its account.
      userID: Buffer.from(user.id, 'utf8'),
      attestationType: 'none',
      timeout: CHALLENGE_TTL_MS,
      excludeCredentials: existing.map((c) => ({
        id: c.credentialId,
        transports: c.transports as AuthenticatorTransport[],
      })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    await this.storeChallenge(options.challenge, {
      purpose: 'registration',
      userId: user.id,
      ticketId: null,
      sessionId: caller.sessionId,
    });
    return options;
  }

  async register(
    caller: SessionCaller,
    name: string,
    challenge: string,
    response: Record<string, unknown>,
    audit: AuditContext,
  ): Promise<WebAuthnCredentialResponse> {
    // Spent whatever the outcome: a challenge answers one response.
    const live = await this.spendChallenge(this.db.manager, challenge, {
      purpose: 'registration',
      userId: caller.userId,
      ticketId: null,
      sessionId: caller.sessionId,
    });
    if (!live) throw new ApiError(ErrorCode.InvalidWebAuthnResponse);
    let info;
    try {
      const verified = await (
        await simpleWebAuthn()
      ).verifyRegistrationResponse({
        response: response as unknown as RegistrationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: this.config.webauthn.origins,
        expectedRPID: this.config.webauthn.rpId,
        requireUserVerification: false,
      });
      info = verified.verified ? verified.registrationInfo : undefined;
    } catch {
      info = undefined;
    }
    if (!info) throw new ApiError(ErrorCode.InvalidWebAuthnResponse);
    const registered = info;
    return this.db.transaction(async (m) => {
      // Serializes concurrent registrations of one user, so the cap holds.
      await m.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [caller.userId]);
      const repo = m.getRepository(WebAuthnCredentialEntity);
      if ((await repo.countBy({ userId: caller.userId })) >= MAX_WEBAUTHN_CREDENTIALS) {
        throw new ApiError(ErrorCode.MaxWebAuthnCredentials);
      }
      if (await repo.existsBy({ credentialId: registered.credential.id })) {
        throw new ApiError(ErrorCode.InvalidWebAuthnResponse);
      }
      const credential = repo.create({
        id: this.snowflakes.next(),
        userId: caller.userId,
        credentialId: registered.credential.id,
        publicKey: Buffer.from(registered.credential.publicKey),
        counter: String(registered.credential.counter),
        transports: registered.credential.transports ?? [],
        name,
        deviceType: registered.credentialDeviceType,
        backedUp: registered.credentialBackedUp,
        lastUsedAt: null,
      });
      await repo.insert(credential);
      await this.factors.add(caller.userId, AuthenticatorType.WebAuthn, m);
      await recordOwnAccountChange(this.audit, m, audit, caller.userId, 'mfa.webauthn.add', {
        credential_id: credential.id,
      });
      const saved = await repo.findOneByOrFail({ id: credential.id });
      return toResponse(saved);
    });
  }

  async list(caller: SessionCaller): Promise<WebAuthnCredentialResponse[]> {
    return (await this.credentialsOf(caller.userId)).map(toResponse);
  }

  async rename(
    caller: SessionCaller,
    id: string,
    name: string,
  ): Promise<WebAuthnCredentialResponse> {
    const repo = this.db.getRepository(WebAuthnCredentialEntity);
    const result = await repo.update({ id, userId: caller.userId }, { name });
    if (!result.affected) throw new ApiError(ErrorCode.UnknownWebAuthnCredential);
    return toResponse(await repo.findOneByOrFail({ id }));
  }

  async remove(
    caller: SessionCaller,
    id: string,
    proof: ReauthProof,
    audit: AuditContext,
  ): Promise<void> {
    // Unknown ids answer 404 before any proof is asked for.
    const repo = this.db.getRepository(WebAuthnCredentialEntity);
    if (!(await repo.existsBy({ id, userId: caller.userId }))) {
      throw new ApiError(ErrorCode.UnknownWebAuthnCredential);
    }
    await this.reauth.confirm(caller, proof, {
      allowRecent: true,
      purpose: 'delete a WebAuthn credential',
    });
    await this.db.transaction(async (m) => {
      const deleted = await m
        .getRepository(WebAuthnCredentialEntity)
        .delete({ id, userId: caller.userId });
      if (!deleted.affected) throw new ApiError(ErrorCode.UnknownWebAuthnCredential);
      const left = await m.getRepository(WebAuthnCredentialEntity).countBy({
        userId: caller.userId,
      });
      if (left === 0) await this.factors.remove(caller.userId, [AuthenticatorType.WebAuthn], m);
      await recordOwnAccountChange(this.audit, m, audit, caller.userId, 'mfa.webauthn.remove', {
        credential_id: id,
      });
    });
  }

  /** A challenge for re-authenticating this session with one of the caller's credentials. */
  async reauthOptions(caller: SessionCaller): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const user = await this.users.getById(caller.userId);
    if (!this.registry.methodsOf(user).includes('webauthn')) {
      throw new ApiError(ErrorCode.MfaMethodUnavailable);
    }
    return this.assertionOptions(user, {
      purpose: 'reauth',
      userId: user.id,
      ticketId: null,
      sessionId: caller.sessionId,
    });
  }

  // ---- login ----

  /** Options for the WebAuthn step of an MFA-required login (bound to the ticket). */
  async mfaOptions(rawTicket: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const { ticket, user } = await this.mfaLogin.ticketUser(rawTicket, 'webauthn');
    return this.assertionOptions(user, {
      purpose: 'mfa',
      userId: user.id,
      ticketId: ticket.id,
      sessionId: null,
    });
  }

  /** Options for a passwordless login: any discoverable credential, user verification required. */
  async passwordlessOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    this.refuseWhenSsoEnforced();
    const options = await (
      await simpleWebAuthn()
    ).generateAuthenticationOptions({
      rpID: this.config.webauthn.rpId,
      userVerification: 'required',
      timeout: CHALLENGE_TTL_MS,
    });
    await this.storeChallenge(options.challenge, {
      purpose: 'passwordless',
      userId: null,
      ticketId: null,
      sessionId: null,
    });
    return options;
  }

  /** A passwordless login: the discoverable credential names its account (user handle). */
  async authenticate(
    challenge: string,
    response: Record<string, unknown>,
    origin: SessionOrigin,
  ): Promise<AuthTokenWithUserIdResponse> {
    this.refuseWhenSsoEnforced();
    const assertion = assertionOf({ challenge, response });
    if (!assertion) throw new ApiError(ErrorCode.InvalidWebAuthnResponse);
    const live = await this.spendChallenge(this.db.manager, challenge, {
      purpose: 'passwordless',
      userId: null,
      ticketId: null,
      sessionId: null,
    });
    if (!live) throw new ApiError(ErrorCode.InvalidWebAuthnResponse);
    const result = await this.db.transaction(async (m) => {
      const credential = await m
        .getRepository(WebAuthnCredentialEntity)
        .findOneBy({ credentialId: assertion.response.id });
      if (!credential) return null;
      const handle = assertion.response.response?.userHandle;
      if (handle && Buffer.from(handle, 'base64url').toString('utf8') !== credential.userId) {
        return null;
      }
      const ok = await this.verifyAssertion(m, credential, assertion, true);
      if (!ok) return null;
      return this.logins.complete(
        credential.userId,
        origin,
        { method: 'webauthn', credentialId: credential.id },
        m,
      );
    });
    if (!result) throw new ApiError(ErrorCode.InvalidWebAuthnResponse);
    return result;
  }

  /**
   * The `webauthn` factor: an assertion by one of the user's credentials over a challenge issued
   * for this ticket (login) or this session (re-authentication). Spends the challenge.
   */
  async verify({ user, proof, context, manager }: SecondFactorCheck): Promise<boolean> {
    const assertion = assertionOf(proof);
    if (!assertion) return false;
    const binding: ChallengeBinding =
      context.kind === 'login'
        ? { purpose: 'mfa', userId: user.id, ticketId: context.ticketId, sessionId: null }
        : { purpose: 'reauth', userId: user.id, ticketId: null, sessionId: context.sessionId };
    if (!(await this.spendChallenge(manager, assertion.challenge, binding))) return false;
    const credential = await manager
      .getRepository(WebAuthnCredentialEntity)
      .findOneBy({ credentialId: assertion.response.id, userId: user.id });
    if (!credential) return false;
    return this.verifyAssertion(manager, credential, assertion, false);
  }

  // ---- internals ----

  private refuseWhenSsoEnforced(): void {
    if (this.config.passwordLoginDisabled) throw new ApiError(ErrorCode.SsoRequired);
  }

  private credentialsOf(userId: string): Promise<WebAuthnCredentialEntity[]> {
    return this.db.getRepository(WebAuthnCredentialEntity).find({
      where: { userId },
      order: { id: 'ASC' },
    });
  }

  private async assertionOptions(
    user: UserEntity,
    binding: ChallengeBinding,
  ): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const credentials = await this.credentialsOf(user.id);
    const options = await (
      await simpleWebAuthn()
    ).generateAuthenticationOptions({
      rpID: this.config.webauthn.rpId,
      userVerification: 'preferred',
      timeout: CHALLENGE_TTL_MS,
      allowCredentials: credentials.map((c) => ({
        id: c.credentialId,
        transports: c.transports as AuthenticatorTransport[],
      })),
    });
    await this.storeChallenge(options.challenge, binding);
    return options;
  }

  /** Checks the signature and the counter; records the new counter and the use. */
  private async verifyAssertion(
    m: EntityManager,
    credential: WebAuthnCredentialEntity,
    assertion: Assertion,
    requireUserVerification: boolean,
  ): Promise<boolean> {
    let newCounter: number;
    try {
      const result = await (
        await simpleWebAuthn()
      ).verifyAuthenticationResponse({
        response: assertion.response,
        expectedChallenge: assertion.challenge,
        expectedOrigin: this.config.webauthn.origins,
        expectedRPID: this.config.webauthn.rpId,
        requireUserVerification,
        credential: {
          id: credential.credentialId,
          publicKey: new Uint8Array(credential.publicKey),
          counter: Number(credential.counter),
          transports: credential.transports,
        },
      });
      // The library refuses a counter that did not grow (when either side counts).
      if (!result.verified) return false;
      newCounter = result.authenticationInfo.newCounter;
    } catch {
      return false;
    }
    await m.query(
      'UPDATE webauthn_credentials SET counter = $2, last_used_at = now() WHERE id = $1',
      [credential.id, newCounter],
    );
    return true;
  }

  private async storeChallenge(challenge: string, binding: ChallengeBinding): Promise<void> {
    await this.db.query(
      `INSERT INTO webauthn_challenges (id, challenge_hash, purpose, user_id, ticket_id, session_id, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))`,
      [
        this.snowflakes.next(),
        sha256(challenge),
        binding.purpose,
        binding.userId,
        binding.ticketId,
        binding.sessionId,
        CHALLENGE_TTL_MS / 1000,
      ],
    );
  }

  /** Spends a live challenge issued for exactly this binding; false otherwise. */
  private async spendChallenge(
    m: EntityManager,
    challenge: string,
    binding: ChallengeBinding,
  ): Promise<boolean> {
    const [, affected] = await m.query<[unknown[], number]>(
      `UPDATE webauthn_challenges SET consumed_at = now()
       WHERE challenge_hash = $1 AND purpose = $2 AND consumed_at IS NULL AND expires_at > now()
         AND user_id IS NOT DISTINCT FROM $3 AND ticket_id IS NOT DISTINCT FROM $4
         AND session_id IS NOT DISTINCT FROM $5
       RETURNING 1`,
      [sha256(challenge), binding.purpose, binding.userId, binding.ticketId, binding.sessionId],
    );
    return affected === 1;
  }
}
