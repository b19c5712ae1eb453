import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { DataSource, type EntityManager } from 'typeorm';
import {
  constantTimeEqual,
  decryptSecret,
  encryptSecret,
  randomToken,
  sha256,
  sha256Base64Url,
} from '../../../common/crypto/tokens';
import { ServiceDiscoveryRegistry } from '../../../common/discovery/service-discovery.registry';
import { ApiError } from '../../../common/errors/api-error';
import { ErrorCode } from '../../../common/errors/error-code';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { sqlSweep, SweeperService } from '../../../common/maintenance/sweeper.service';
import { SnowflakeService } from '../../../common/snowflake/snowflake.service';
import { AppConfig } from '../../../config/app.config';
import { userActor } from '../../audit/actor';
import { AuditLog } from '../../audit/audit-log.service';
import { BanChecks } from '../../bans/ban-checks.service';
import type { UserEntity } from '../../users/user.entity';
import { slugifyUsername } from '../../users/username-slug';
import { UsersService } from '../../users/users.service';
import { IpAuthorizationService } from '../ip-authorization.service';
import { SessionsService, type SessionOrigin } from '../sessions.service';
import type {
  SsoCompleteResponse,
  SsoConfigResponse,
  SsoStartResponse,
  SsoStatusResponse,
} from './dto';

const STATE_TTL_SECONDS = 600;
const METADATA_TTL_MS = 60 * 60_000;
const HTTP_TIMEOUT_MS = 5_000;

/** The parts of the issuer's discovery document this relying party uses. */
interface IssuerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  userinfo_endpoint?: string;
}

/** What the sign-in establishes about the person. */
interface Identity {
  issuer: string;
  subject: string;
  email: string;
  name: string | null;
}

const stripSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * Single sign-on against one OpenID Connect issuer (authorization code + PKCE S256 + nonce).
 * The issuer is discovered from `SSO_ISSUER`; the ID token is verified with jose against the
 * issuer's JWKS (issuer, audience, expiry, signature), its nonce against the hash stored with
 * the single-use state. An identity is linked to an account with the same verified e-mail, or
 * creates one when `SSO_AUTO_PROVISION=on`.
 */
@Injectable()
export class SsoService implements OnModuleInit {
  private readonly logger = new Logger('Sso');
  private metadata: { value: IssuerMetadata; at: number } | null = null;
  private jwks: { uri: string; set: ReturnType<typeof createRemoteJWKSet> } | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: AppConfig,
    private readonly snowflakes: SnowflakeService,
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly ipAuthorization: IpAuthorizationService,
    private readonly bans: BanChecks,
    private readonly audit: AuditLog,
    private readonly discovery: ServiceDiscoveryRegistry,
    private readonly sweeper: SweeperService,
  ) {}

  onModuleInit(): void {
    this.discovery.setFeatures({ sso: this.config.sso.enabled });
    this.sweeper.register(
      sqlSweep(
        'sso_states',
        this.db,
        "DELETE FROM sso_states WHERE expires_at < now() - interval '1 day'",
      ),
    );
  }

  status(): SsoStatusResponse {
    const { sso } = this.config;
    return {
      display_name: sso.displayName,
      enabled: sso.enabled,
      enforced: this.config.passwordLoginDisabled,
      redirect_uri: sso.redirectUri,
    };
  }

  /** A new sign-in: the issuer's authorization URL with a fresh state, nonce and PKCE challenge. */
  async start(redirectTo: string | null | undefined): Promise<SsoStartResponse> {
    const sso = this.enabledConfig();
    const target = this.redirectTarget(redirectTo);
    const metadata = await this.issuerMetadata();
    const state = randomToken(32);
    const nonce = randomToken(32);
    const verifier = randomToken(32);
    await this.db.query(
      `INSERT INTO sso_states (id, state_hash, nonce_hash, code_verifier_enc, redirect_to, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
      [
        this.snowflakes.next(),
        sha256(state),
        sha256(nonce),
        encryptSecret(this.config.secretKey, verifier),
        target,
        STATE_TTL_SECONDS,
      ],
    );
    const url = new URL(metadata.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', sso.clientId);
    url.searchParams.set('redirect_uri', sso.redirectUri);
    url.searchParams.set('scope', sso.scope);
    url.searchParams.set('state', state);
    url.searchParams.set('nonce', nonce);
    url.searchParams.set('code_challenge', sha256Base64Url(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    return { authorization_url: url.toString(), redirect_uri: sso.redirectUri, state };
  }

  /** Exchanges the code, verifies the ID token and signs the person in. */
  async complete(code: string, state: string, origin: SessionOrigin): Promise<SsoCompleteResponse> {
    const sso = this.enabledConfig();
    const [rows] = await this.db.query<
      [Array<{ nonce_hash: Buffer; code_verifier_enc: string; redirect_to: string }>, number]
    >(
      `UPDATE sso_states SET consumed_at = now()
       WHERE state_hash = $1 AND consumed_at IS NULL AND expires_at > now()
       RETURNING nonce_hash, code_verifier_enc, redirect_to`,
      [sha256(state)],
    );
    const started = rows[0];
    if (!started) throw new ApiError(ErrorCode.InvalidSsoState);
    const metadata = await this.issuerMetadata();
    const tokens = await this.exchange(
      metadata,
      code,
      decryptSecret(this.config.secretKey, started.code_verifier_enc),
    );
    const claims = await this.verifyIdToken(metadata, tokens.idToken, started.nonce_hash);
    const identity = await this.identityOf(metadata, claims, tokens.accessToken);
    this.assertDomainAllowed(identity.email, sso.allowedDomains);
    const result = await this.db.transaction(async (m) => {
      const { user, how } = await this.accountFor(identity, m);
      await m.query(
        `INSERT INTO sso_identities (issuer, subject, user_id, last_login_at) VALUES ($1, $2, $3, now())
         ON CONFLICT (issuer, subject) DO UPDATE SET last_login_at = now()`,
        [identity.issuer, identity.subject, user.id],
      );
      const { token } = await this.sessions.create(user.id, origin, m);
      await this.ipAuthorization.record(user.id, origin.ip, m);
      await this.audit.record(m, {
        actor: userActor(user.id),
        action: 'auth.login',
        targetType: 'user',
        targetId: user.id,
        metadata: { method: 'sso', issuer: identity.issuer, account: how },
        ip: origin.ip,
      });
      return { token, user_id: user.id };
    });
    return { ...result, redirect_to: started.redirect_to };
  }

  /** The admin's view of the configuration (never the client secret). */
  async adminConfig(): Promise<SsoConfigResponse> {
    const { sso } = this.config;
    let metadata: IssuerMetadata | null = null;
    if (sso.enabled && sso.issuer) {
      metadata = await this.issuerMetadata().catch(() => null);
    }
    return {
      enabled: sso.enabled,
      display_name: sso.displayName,
      issuer: sso.issuer,
      client_id: sso.clientId,
      client_secret_set: sso.clientSecret !== null && sso.clientSecret !== '',
      redirect_uri: sso.redirectUri,
      scope: sso.scope,
      allowed_domains: sso.allowedDomains,
      auto_provision: sso.autoProvision,
      authorization_url: metadata?.authorization_endpoint ?? null,
      token_url: metadata?.token_endpoint ?? null,
      userinfo_url: metadata?.userinfo_endpoint ?? null,
      jwks_url: metadata?.jwks_uri ?? null,
    };
  }

  // ---- internals ----

  private enabledConfig(): AppConfig['sso'] & { issuer: string; clientId: string } {
    const { sso } = this.config;
    if (!sso.enabled || !sso.issuer || !sso.clientId) throw new ApiError(ErrorCode.SsoNotEnabled);
    return { ...sso, issuer: sso.issuer, clientId: sso.clientId };
  }

  /** `redirect_to` resolved against the web app, and only on its origin. */
  private redirectTarget(value: string | null | undefined): string {
    const base = new URL(`${this.config.webAppUrl}/`);
    if (value === null || value === undefined || value === '') return base.toString();
    let target: URL;
    try {
      target = new URL(value, base);
    } catch {
      target = new URL('invalid:');
    }
    if (target.origin !== base.origin) {
      throw ApiError.field(
        'redirect_to',
        FieldErrorCode.InvalidUrl,
        `redirect_to must be a path or a URL on ${base.origin}.`,
      );
    }
    return target.toString();
  }

  private async issuerMetadata(): Promise<IssuerMetadata> {
    if (this.metadata && Date.now() - this.metadata.at < METADATA_TTL_MS) {
      return this.metadata.value;
    }
    const issuer = stripSlash(this.config.sso.issuer ?? '');
    const body = await this.fetchJson(`${issuer}/.well-known/openid-configuration`, {});
    const doc = body.ok ? (body.json as Partial<IssuerMetadata>) : null;
    if (
      !doc ||
      typeof doc.issuer !== 'string' ||
      stripSlash(doc.issuer) !== issuer ||
      typeof doc.authorization_endpoint !== 'string' ||
      typeof doc.token_endpoint !== 'string' ||
      typeof doc.jwks_uri !== 'string'
    ) {
      this.logger.warn(`SSO discovery at ${issuer} failed or does not describe this issuer`);
      throw new ApiError(ErrorCode.SsoProviderUnavailable);
    }
    const value: IssuerMetadata = {
      issuer: doc.issuer,
      authorization_endpoint: doc.authorization_endpoint,
      token_endpoint: doc.token_endpoint,
      jwks_uri: doc.jwks_uri,
      userinfo_endpoint:
        typeof doc.userinfo_endpoint === 'string' ? doc.userinfo_endpoint : undefined,
    };
    this.metadata = { value, at: Date.now() };
    return value;
  }

  private keySet(metadata: IssuerMetadata): ReturnType<typeof createRemoteJWKSet> {
    if (this.jwks?.uri !== metadata.jwks_uri) {
      this.jwks = {
        uri: metadata.jwks_uri,
        set: createRemoteJWKSet(new URL(metadata.jwks_uri), { timeoutDuration: HTTP_TIMEOUT_MS }),
      };
    }
    return this.jwks.set;
  }

  private async exchange(
    metadata: IssuerMetadata,
    code: string,
    verifier: string,
  ): Promise<{ idToken: string; accessToken: string | null }> {
    const { clientId, clientSecret, redirectUri } = this.config.sso;
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    const headers: Record<string, string> = {
      'Content-Type': 'application/x-www-form-urlencoded',
    };
    if (clientSecret) {
      // RFC 6749 §2.3.1: both parts form-urlencoded before Basic.
      const pair = `${encodeURIComponent(clientId ?? '')}:${encodeURIComponent(clientSecret)}`;
      headers.Authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    } else {
      form.set('client_id', clientId ?? '');
    }
    const res = await this.fetchJson(metadata.token_endpoint, {
      method: 'POST',
      headers,
      body: form.toString(),
    });
    const json = res.json as { id_token?: unknown; access_token?: unknown } | null;
    if (!res.ok || typeof json?.id_token !== 'string') {
      this.logger.warn(`SSO token exchange refused: HTTP ${res.status}`);
      throw new ApiError(ErrorCode.SsoExchangeFailed);
    }
    return {
      idToken: json.id_token,
      accessToken: typeof json.access_token === 'string' ? json.access_token : null,
    };
  }

  private async verifyIdToken(
    metadata: IssuerMetadata,
    idToken: string,
    nonceHash: Buffer,
  ): Promise<JWTPayload> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, this.keySet(metadata), {
        issuer: metadata.issuer,
        audience: this.config.sso.clientId ?? '',
        clockTolerance: 30,
      }));
    } catch (e) {
      this.logger.warn(`SSO ID token refused: ${e instanceof Error ? e.message : String(e)}`);
      throw new ApiError(ErrorCode.SsoExchangeFailed);
    }
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    const azpOk =
      audiences.length === 1 ||
      (typeof payload.azp === 'string' && payload.azp === this.config.sso.clientId);
    const nonceOk =
      typeof payload.nonce === 'string' && constantTimeEqual(sha256(payload.nonce), nonceHash);
    if (!azpOk || !nonceOk || typeof payload.sub !== 'string' || payload.sub === '') {
      this.logger.warn('SSO ID token refused: nonce, azp or sub does not match');
      throw new ApiError(ErrorCode.SsoExchangeFailed);
    }
    return payload;
  }

  /** E-mail and name from the ID token, or from the userinfo endpoint when the token has none. */
  private async identityOf(
    metadata: IssuerMetadata,
    claims: JWTPayload,
    accessToken: string | null,
  ): Promise<Identity> {
    let source: Record<string, unknown> = claims;
    if (typeof claims.email !== 'string' && metadata.userinfo_endpoint && accessToken) {
      const res = await this.fetchJson(metadata.userinfo_endpoint, {
        headers: { Authorization: `Bearer ${accessToken}` },
      });
      const info = res.json as Record<string, unknown> | null;
      // OIDC Core §5.3.2: the userinfo `sub` must be the ID token's.
      if (res.ok && info && info.sub === claims.sub) source = { ...claims, ...info };
    }
    const email = typeof source.email === 'string' ? source.email.trim() : '';
    if (!email || source.email_verified !== true || email.length > 254 || !email.includes('@')) {
      throw new ApiError(ErrorCode.SsoEmailRequired);
    }
    const name = typeof source.name === 'string' && source.name.trim() ? source.name.trim() : null;
    return { issuer: metadata.issuer, subject: claims.sub as string, email, name };
  }

  private assertDomainAllowed(email: string, allowed: string[]): void {
    if (allowed.length === 0) return;
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    if (!allowed.some((d) => d.toLowerCase() === domain)) {
      throw new ApiError(ErrorCode.SsoDomainNotAllowed);
    }
  }

  /** The linked account, else the account with this verified e-mail, else a new one (if allowed). */
  private async accountFor(
    identity: Identity,
    m: EntityManager,
  ): Promise<{ user: UserEntity; how: 'linked' | 'matched_email' | 'provisioned' }> {
    const linked = await m.query<Array<{ user_id: string }>>(
      'SELECT user_id FROM sso_identities WHERE issuer = $1 AND subject = $2',
      [identity.issuer, identity.subject],
    );
    if (linked[0]) return { user: await this.users.getById(linked[0].user_id, m), how: 'linked' };
    const existing = await this.users.findByEmail(identity.email, m);
    if (existing) {
      if (!existing.emailVerified) {
        // Linking would hand an account someone registered with this address, unproven, to
        // whoever holds it at the issuer (or the reverse): the owner verifies it first.
        throw new ApiError(
          ErrorCode.SsoAccountNotFound,
          'An account with this e-mail exists but its address is not verified: verify it, then sign in with SSO.',
        );
      }
      return { user: existing, how: 'matched_email' };
    }
    if (!this.config.sso.autoProvision) throw new ApiError(ErrorCode.SsoAccountNotFound);
    await this.bans.assertEmailAllowed('email', identity.email, m);
    const localPart = identity.email.slice(0, identity.email.lastIndexOf('@'));
    const user = await this.users.create(
      {
        username: slugifyUsername(identity.name ?? localPart),
        globalName: identity.name ? identity.name.slice(0, 32) : null,
        email: identity.email,
        passwordHash: null,
      },
      m,
    );
    await m.query('UPDATE users SET email_verified = true WHERE id = $1', [user.id]);
    return { user, how: 'provisioned' };
  }

  private async fetchJson(
    url: string,
    init: RequestInit,
  ): Promise<{ ok: boolean; status: number; json: unknown }> {
    let res: Response;
    try {
      res = await fetch(url, {
        ...init,
        headers: { Accept: 'application/json', ...(init.headers as Record<string, string>) },
        signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
        redirect: 'error',
      });
    } catch (e) {
      this.logger.warn(
        `SSO provider unreachable (${url}): ${e instanceof Error ? e.message : String(e)}`,
      );
      throw new ApiError(ErrorCode.SsoProviderUnavailable);
    }
    const json: unknown = await res.json().catch(() => null);
    return { ok: res.ok, status: res.status, json };
  }
}
