import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Configuration, IDToken } from 'openid-client';
import { DataSource, type EntityManager } from 'typeorm';
import { decryptSecret, encryptSecret, sha256 } from '../../../common/crypto/tokens';
import { ServiceDiscoveryRegistry } from '../../../common/discovery/service-discovery.registry';
import { ApiError } from '../../../common/errors/api-error';
import { ErrorCode } from '../../../common/errors/error-code';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { sqlSweep, SweeperService } from '../../../common/maintenance/sweeper.service';
import { SnowflakeService } from '../../../common/snowflake/snowflake.service';
import { AppConfig } from '../../../config/app.config';
import { BanChecks } from '../../bans/ban-checks.service';
import type { UserEntity } from '../../users/user.entity';
import { slugifyUsername } from '../../users/username-slug';
import { UsersService } from '../../users/users.service';
import { LoginCompletion } from '../login-completion.service';
import type { SessionOrigin } from '../sessions.service';
import type {
  SsoCompleteResponse,
  SsoConfigResponse,
  SsoStartResponse,
  SsoStatusResponse,
} from './sso.response';
import { describeFailure, isUnreachable, openidClient } from './openid-client';

const STATE_TTL_SECONDS = 600;
const METADATA_TTL_MS = 60 * 60_000;
const HTTP_TIMEOUT_SECONDS = 5;

/** What the sign-in establishes about the person. */
interface Identity {
  issuer: string;
  subject: string;
  email: string;
  name: string | null;
}

/**
 * Single sign-on against one OpenID Connect issuer (authorization code + PKCE S256 + nonce).
 * The protocol is openid-client's: discovery of `SSO_ISSUER` (the metadata must name that
 * issuer), the authorization URL, the code exchange and the ID token's validation (signature
 * against the issuer's JWKS, `iss`, `aud`/`azp`, expiry, nonce), userinfo with its `sub` check.
 * This service keeps what is Parley's: the single-use state (hashed, 10 minutes) with the PKCE
 * verifier and nonce sealed beside it, the allowed domains, and linking the identity to an
 * account with the same verified e-mail, or creating one when `SSO_AUTO_PROVISION=on`.
 */
@Injectable()
export class SsoService implements OnModuleInit {
  private readonly logger = new Logger('Sso');
  /** The discovered issuer and this client, with its cached JWKS; rediscovered hourly. */
  private client: { config: Configuration; at: number } | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: AppConfig,
    private readonly snowflakes: SnowflakeService,
    private readonly users: UsersService,
    private readonly logins: LoginCompletion,
    private readonly bans: BanChecks,
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
    const config = await this.configuration();
    const oidc = await openidClient();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const verifier = oidc.randomPKCECodeVerifier();
    await this.db.query(
      `INSERT INTO sso_states (id, state_hash, nonce_enc, code_verifier_enc, redirect_to, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
      [
        this.snowflakes.next(),
        sha256(state),
        encryptSecret(this.config.secretKey, nonce),
        encryptSecret(this.config.secretKey, verifier),
        target,
        STATE_TTL_SECONDS,
      ],
    );
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: sso.redirectUri,
      scope: sso.scope,
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return { authorization_url: url.href, redirect_uri: sso.redirectUri, state };
  }

  /** Exchanges the code, verifies the ID token and signs the person in. */
  async complete(code: string, state: string, origin: SessionOrigin): Promise<SsoCompleteResponse> {
    const sso = this.enabledConfig();
    const [rows] = await this.db.query<
      [Array<{ nonce_enc: string; code_verifier_enc: string; redirect_to: string }>, number]
    >(
      `UPDATE sso_states SET consumed_at = now()
       WHERE state_hash = $1 AND consumed_at IS NULL AND expires_at > now()
       RETURNING nonce_enc, code_verifier_enc, redirect_to`,
      [sha256(state)],
    );
    const started = rows[0];
    if (!started) throw new ApiError(ErrorCode.InvalidSsoState);
    const config = await this.configuration();
    const { claims, accessToken } = await this.exchange(config, code, state, {
      nonce: decryptSecret(this.config.secretKey, started.nonce_enc),
      verifier: decryptSecret(this.config.secretKey, started.code_verifier_enc),
    });
    const identity = await this.identityOf(config, claims, accessToken);
    this.assertDomainAllowed(identity.email, sso.allowedDomains);
    const result = await this.db.transaction(async (m) => {
      const { user, how } = await this.accountFor(identity, m);
      await m.query(
        `INSERT INTO sso_identities (issuer, subject, user_id, last_login_at) VALUES ($1, $2, $3, now())
         ON CONFLICT (issuer, subject) DO UPDATE SET last_login_at = now()`,
        [identity.issuer, identity.subject, user.id],
      );
      return this.logins.complete(
        user.id,
        origin,
        { method: 'sso', issuer: identity.issuer, account: how },
        m,
      );
    });
    return { ...result, redirect_to: started.redirect_to };
  }

  /** The admin's view of the configuration (never the client secret). */
  async adminConfig(): Promise<SsoConfigResponse> {
    const { sso } = this.config;
    let metadata: ReturnType<Configuration['serverMetadata']> | null = null;
    if (sso.enabled && sso.issuer && sso.clientId) {
      metadata = await this.configuration().then(
        (config) => config.serverMetadata(),
        () => null,
      );
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

  /**
   * openid-client's Configuration for the issuer (discovered; the metadata's `issuer` must be
   * `SSO_ISSUER`) and this client: client_secret_basic with a secret, else a public client.
   */
  private async configuration(): Promise<Configuration> {
    if (this.client && Date.now() - this.client.at < METADATA_TTL_MS) return this.client.config;
    const { issuer, clientId, clientSecret } = this.enabledConfig();
    const oidc = await openidClient();
    const server = new URL(issuer);
    let config: Configuration;
    try {
      config = await oidc.discovery(
        server,
        clientId,
        undefined,
        clientSecret ? oidc.ClientSecretBasic(clientSecret) : oidc.None(),
        {
          timeout: HTTP_TIMEOUT_SECONDS,
          execute: [
            // openid-client trusts the TLS channel to the token endpoint for the ID token's
            // origin (OIDC Core §3.1.3.7) and skips its signature; check it against the JWKS
            // anyway, as this relying party always has (and there is no TLS with http://).
            oidc.enableNonRepudiationChecks,
            // openid-client speaks HTTPS only; an issuer configured as http:// is the
            // operator's choice (a development IdP on loopback, or behind a trusted network).
            ...(server.protocol === 'http:' ? [oidc.allowInsecureRequests] : []),
          ],
        },
      );
    } catch (e) {
      this.logger.warn(
        `SSO discovery at ${issuer} failed or does not describe this issuer: ${describeFailure(e)}`,
      );
      throw new ApiError(ErrorCode.SsoProviderUnavailable);
    }
    this.client = { config, at: Date.now() };
    return config;
  }

  /**
   * The code for tokens, and the validated ID token's claims (openid-client sends the PKCE
   * verifier and checks the signature against the issuer's JWKS, `iss`, `aud`/`azp`, expiry and
   * the nonce).
   */
  private async exchange(
    config: Configuration,
    code: string,
    state: string,
    checks: { nonce: string; verifier: string },
  ): Promise<{ claims: IDToken; accessToken: string }> {
    const oidc = await openidClient();
    // The authorization response as it reached the redirect URI. The web app posts only code
    // and state; `iss` (RFC 9207) protects clients of several issuers from mix-up, and this
    // client has exactly one, so the response is stated to come from it.
    const callback = new URL(this.config.sso.redirectUri);
    callback.searchParams.set('code', code);
    callback.searchParams.set('state', state);
    const metadata = config.serverMetadata();
    if (metadata.authorization_response_iss_parameter_supported) {
      callback.searchParams.set('iss', metadata.issuer);
    }
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callback, {
        expectedState: state,
        expectedNonce: checks.nonce,
        pkceCodeVerifier: checks.verifier,
        idTokenExpected: true,
      });
      // idTokenExpected: openid-client has refused a response without an ID token.
      const claims = tokens.claims() as IDToken;
      return { claims, accessToken: tokens.access_token };
    } catch (e) {
      this.logger.warn(`SSO code exchange refused: ${describeFailure(e)}`);
      if (isUnreachable(e)) throw new ApiError(ErrorCode.SsoProviderUnavailable);
      throw new ApiError(ErrorCode.SsoExchangeFailed);
    }
  }

  /** E-mail and name from the ID token, or from the userinfo endpoint when the token has none. */
  private async identityOf(
    config: Configuration,
    claims: IDToken,
    accessToken: string,
  ): Promise<Identity> {
    const metadata = config.serverMetadata();
    let source: Record<string, unknown> = claims;
    if (typeof claims.email !== 'string' && metadata.userinfo_endpoint) {
      const oidc = await openidClient();
      try {
        // openid-client refuses an answer whose `sub` is not the ID token's (OIDC Core §5.3.2).
        source = { ...claims, ...(await oidc.fetchUserInfo(config, accessToken, claims.sub)) };
      } catch (e) {
        if (isUnreachable(e)) {
          this.logger.warn(`SSO userinfo unreachable: ${describeFailure(e)}`);
          throw new ApiError(ErrorCode.SsoProviderUnavailable);
        }
        // Without userinfo the ID token's claims decide (no e-mail: SSO_EMAIL_REQUIRED).
        this.logger.warn(`SSO userinfo refused: ${describeFailure(e)}`);
      }
    }
    const email = typeof source.email === 'string' ? source.email.trim() : '';
    if (!email || source.email_verified !== true || email.length > 254 || !email.includes('@')) {
      throw new ApiError(ErrorCode.SsoEmailRequired);
    }
    const name = typeof source.name === 'string' && source.name.trim() ? source.name.trim() : null;
    return { issuer: metadata.issuer, subject: claims.sub, email, name };
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
        emailVerified: true,
        passwordHash: null,
      },
      m,
    );
    return { user, how: 'provisioned' };
  }
}
