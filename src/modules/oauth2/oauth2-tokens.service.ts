import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import type { BearerCaller } from '../../common/auth/caller';
import type { CredentialResolver } from '../../common/auth/credential-resolvers';
import { CredentialResolvers } from '../../common/auth/credential-resolvers';
import {
  constantTimeEqual,
  randomToken,
  sha256,
  sha256Base64Url,
} from '../../common/crypto/tokens';
import { OAuthError } from '../../common/errors/oauth-error';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { parseSnowflake } from '../../common/snowflake/snowflake';
import { TaggedCache } from '../../common/cache/tagged-cache';
import { PreparedStatement } from '../../database/prepared';
import { CHANGES_CHANNEL, DatabaseNotifications } from '../../database/notifications';
import { ApplicationEntity } from './application.entity';
import { IdTokenService, type IdTokenInput } from './id-token.service';
import { invalidClient, type PresentedClient } from './client-credentials';
import { OAuth2CodeEntity } from './oauth2-code.entity';
import { OAuth2GrantEntity } from './oauth2-grant.entity';
import { OAuth2TokenEntity, type OAuth2TokenKind } from './oauth2-token.entity';
import type { OAuth2IntrospectResponse, OAuth2TokenResponse } from './oauth2.response';
import { formatScopes, parseScopes } from './scopes';

export const CODE_TTL_MS = 10 * 60_000;
export const ACCESS_TTL_MS = 7 * 24 * 3_600_000;
export const REFRESH_TTL_MS = 30 * 24 * 3_600_000;

const OPAQUE = /^[A-Za-z0-9_-]{43}$/;

const ACCESS_TOKEN = new PreparedStatement<{
  id: string;
  user_id: string;
  application_id: string;
  scopes: string[];
  expires_at: Date;
}>(
  'parley_access_token_by_hash',
  `SELECT id::text AS id, user_id::text AS user_id, application_id::text AS application_id, scopes, expires_at
     FROM oauth2_tokens WHERE token_hash = $1 AND kind = 'access' AND expires_at > now()`,
);

const INTROSPECTED = new PreparedStatement<{
  id: string;
  kind: OAuth2TokenKind;
  user_id: string;
  scopes: string[];
  expires_at: Date;
  created_at: Date;
  username: string;
}>(
  'parley_introspect_token',
  `SELECT t.id::text AS id, t.kind, t.user_id::text AS user_id, t.scopes, t.expires_at, t.created_at, u.username
     FROM oauth2_tokens t JOIN users u ON u.id = t.user_id
    WHERE t.token_hash = $1 AND t.application_id = $2 AND t.used_at IS NULL`,
);
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

type Params = Record<string, string | undefined>;
// Failures are returned, not thrown, so that a replay's revocation commits. An ID token is
// signed after the commit, from what the transaction read.
type GrantOutcome =
  { error: string } | { tokens: OAuth2TokenResponse; idToken: IdTokenInput | null };

const GRANT_AUTH_TIME = new PreparedStatement<{ auth_time: Date }>(
  'parley_oauth2_grant_auth_time',
  `SELECT g.auth_time FROM oauth2_tokens t JOIN oauth2_grants g ON g.id = t.grant_id WHERE t.id = $1`,
);

/**
 * The token endpoint's grants, introspection, revocation and the bearer resolver. Codes and
 * tokens are random (32 bytes) and stored as SHA-256 only.
 */
@Injectable()
export class OAuth2TokensService implements CredentialResolver, OnModuleInit {
  /**
   * Authenticated clients by `<client_id>:<SHA-256 of the secret>` (successes only). Any change to
   * an application row (a secret reset, a deletion) drops its entries on every instance.
   */
  private readonly clients = new TaggedCache<Readonly<ApplicationEntity>>(10_000, 5 * 60_000);
  /**
   * Active introspection answers by `<client id>:<SHA-256 of the token>`, until the token expires
   * or its row, its user or its application changes (on every instance).
   */
  private readonly introspections = new TaggedCache<OAuth2IntrospectResponse>(50_000, 5 * 60_000);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly snowflakes: SnowflakeService,
    private readonly resolvers: CredentialResolvers,
    private readonly notifications: DatabaseNotifications,
    private readonly idTokens: IdTokenService,
  ) {}

  onModuleInit(): void {
    this.resolvers.register('bearer', this);
    this.notifications.invalidateOnChange(this.clients, 'a:');
    this.notifications.invalidateOnChange(this.introspections);
  }

  /** Hot path: one indexed query by token hash. */
  async resolve(token: string): Promise<BearerCaller | null> {
    if (!OPAQUE.test(token)) return null;
    const [row] = await ACCESS_TOKEN.run(this.db, [sha256(token)]);
    if (!row) return null;
    return {
      kind: 'bearer',
      userId: row.user_id,
      applicationId: row.application_id,
      tokenId: row.id,
      scopes: row.scopes,
      expiresAt: new Date(row.expires_at),
    };
  }

  /** RFC 6749 §2.3: the client must prove its identity; anything wrong is a 401 invalid_client. */
  async authenticateClient(client: PresentedClient): Promise<Readonly<ApplicationEntity>> {
    const presented = sha256(client.clientSecret);
    const key = `${client.clientId}:${presented.toString('base64')}`;
    const hit = this.clients.get(key);
    if (hit) return hit;
    const generation = this.clients.currentGeneration;
    const id = parseSnowflake(client.clientId);
    const app = id ? await this.db.getRepository(ApplicationEntity).findOneBy({ id }) : null;
    // Compare even for unknown clients, so both paths cost the same.
    const ok = constantTimeEqual(presented, app?.clientSecretHash ?? Buffer.alloc(32));
    if (!app || !ok) throw invalidClient();
    this.clients.set(key, Object.freeze(app), [`a:${app.id}`], generation);
    return app;
  }

  /** Creates a code for a consent (the caller has validated client, scopes and redirect). */
  async createCode(
    m: EntityManager,
    input: {
      applicationId: string;
      userId: string;
      scopes: string[];
      redirectUri: string | null;
      codeChallenge: string | null;
      nonce: string | null;
      authTime: Date;
    },
  ): Promise<string> {
    const code = randomToken(32);
    await m.getRepository(OAuth2CodeEntity).insert({
      id: this.snowflakes.next(),
      codeHash: sha256(code),
      applicationId: input.applicationId,
      userId: input.userId,
      scopes: input.scopes,
      redirectUri: input.redirectUri,
      codeChallenge: input.codeChallenge,
      nonce: input.nonce,
      authTime: input.authTime,
      expiresAt: new Date(Date.now() + CODE_TTL_MS),
      consumedAt: null,
      createdAt: new Date(),
    });
    return code;
  }

  async grant(app: ApplicationEntity, params: Params): Promise<OAuth2TokenResponse> {
    switch (params.grant_type) {
      case undefined:
        throw new OAuthError('invalid_request', 'grant_type is required.');
      case 'authorization_code':
        return this.exchangeCode(app, params);
      case 'refresh_token':
        return this.refresh(app, params);
      default:
        throw new OAuthError(
          'unsupported_grant_type',
          'Supported grant types: authorization_code, refresh_token.',
        );
    }
  }

  private requestedScopes(params: Params, granted: string[]): string[] {
    if (params.scope === undefined) return granted;
    const asked = parseScopes(params.scope);
    if (!asked || asked.some((s) => !granted.includes(s))) {
      throw new OAuthError('invalid_scope', 'The requested scope exceeds the granted scope.');
    }
    return asked;
  }

  private async exchangeCode(app: ApplicationEntity, params: Params): Promise<OAuth2TokenResponse> {
    if (!params.code) throw new OAuthError('invalid_request', 'code is required.');
    const codeHash = sha256(params.code);
    const outcome = await this.db.transaction<GrantOutcome>(async (m) => {
      const code = await m
        .getRepository(OAuth2CodeEntity)
        .createQueryBuilder('c')
        .setLock('pessimistic_write')
        .where('c.code_hash = :h', { h: codeHash })
        .getOne();
      if (!code || code.applicationId !== app.id) {
        return { error: 'The authorization code is invalid.' };
      }
      if (code.consumedAt) {
        // RFC 6749 §4.1.2: a replayed code revokes what it produced.
        const grant = await m.getRepository(OAuth2GrantEntity).findOneBy({ codeId: code.id });
        if (grant) await this.revokeGrants(m, [grant.id]);
        return { error: 'The authorization code has already been used.' };
      }
      if (code.expiresAt.getTime() <= Date.now()) {
        return { error: 'The authorization code has expired.' };
      }
      if (code.redirectUri !== null && params.redirect_uri !== code.redirectUri) {
        return { error: 'redirect_uri does not match the authorization request.' };
      }
      if (code.codeChallenge !== null) {
        const v = params.code_verifier;
        if (!v || !VERIFIER.test(v) || !constantTimeEqual(sha256Base64Url(v), code.codeChallenge)) {
          return { error: 'PKCE verification failed.' };
        }
      } else if (params.code_verifier !== undefined) {
        return { error: 'No code_challenge was sent for this code.' };
      }
      const scopes = this.requestedScopes(params, code.scopes);
      await m.getRepository(OAuth2CodeEntity).update({ id: code.id }, { consumedAt: new Date() });
      const grantId = this.snowflakes.next();
      await m.getRepository(OAuth2GrantEntity).insert({
        id: grantId,
        applicationId: app.id,
        userId: code.userId,
        codeId: code.id,
        scopes: code.scopes,
        authTime: code.authTime,
        createdAt: new Date(),
        revokedAt: null,
      });
      return {
        tokens: await this.issue(m, grantId, app.id, code.userId, scopes),
        idToken: this.idTokenInput(app.id, code.userId, scopes, code.authTime, code.nonce),
      };
    });
    return this.finish(outcome);
  }

  private idTokenInput(
    clientId: string,
    userId: string,
    scopes: string[],
    authTime: Date,
    nonce: string | null,
  ): IdTokenInput | null {
    return scopes.includes('openid') ? { clientId, userId, scopes, authTime, nonce } : null;
  }

  private async finish(outcome: GrantOutcome): Promise<OAuth2TokenResponse> {
    if ('error' in outcome) throw new OAuthError('invalid_grant', outcome.error);
    if (outcome.idToken) outcome.tokens.id_token = await this.idTokens.issue(outcome.idToken);
    return outcome.tokens;
  }

  /** OpenID Connect `auth_time` of an access token's grant (userinfo); null once revoked. */
  async authTimeOf(tokenId: string): Promise<Date | null> {
    const [row] = await GRANT_AUTH_TIME.run(this.db, [tokenId]);
    return row ? new Date(row.auth_time) : null;
  }

  private async refresh(app: ApplicationEntity, params: Params): Promise<OAuth2TokenResponse> {
    if (!params.refresh_token)
      throw new OAuthError('invalid_request', 'refresh_token is required.');
    const hash = sha256(params.refresh_token);
    const outcome = await this.db.transaction<GrantOutcome>(async (m) => {
      const old = await m
        .getRepository(OAuth2TokenEntity)
        .createQueryBuilder('t')
        .setLock('pessimistic_write')
        .where("t.token_hash = :h AND t.kind = 'refresh'", { h: hash })
        .getOne();
      if (!old || old.applicationId !== app.id) {
        return { error: 'The refresh token is invalid.' };
      }
      if (old.usedAt) {
        // Rotation: a used refresh token presented again means it leaked — end the grant.
        await this.revokeGrants(m, [old.grantId]);
        return { error: 'The refresh token has already been used.' };
      }
      if (old.expiresAt.getTime() <= Date.now()) {
        return { error: 'The refresh token has expired.' };
      }
      const grant = await m.getRepository(OAuth2GrantEntity).findOneByOrFail({ id: old.grantId });
      const scopes = this.requestedScopes(params, grant.scopes);
      await m.getRepository(OAuth2TokenEntity).update({ id: old.id }, { usedAt: new Date() });
      return {
        tokens: await this.issue(m, grant.id, app.id, old.userId, scopes),
        // OpenID Connect Core §12.2: same auth_time, no nonce.
        idToken: this.idTokenInput(app.id, old.userId, scopes, grant.authTime, null),
      };
    });
    return this.finish(outcome);
  }

  private async issue(
    m: EntityManager,
    grantId: string,
    applicationId: string,
    userId: string,
    scopes: string[],
  ): Promise<OAuth2TokenResponse> {
    const now = Date.now();
    const access = randomToken(32);
    const refresh = randomToken(32);
    const row = (kind: OAuth2TokenKind, token: string, ttl: number): OAuth2TokenEntity => ({
      id: this.snowflakes.next(),
      tokenHash: sha256(token),
      kind,
      grantId,
      applicationId,
      userId,
      scopes,
      expiresAt: new Date(now + ttl),
      usedAt: null,
      createdAt: new Date(now),
    });
    await m
      .getRepository(OAuth2TokenEntity)
      .insert([row('access', access, ACCESS_TTL_MS), row('refresh', refresh, REFRESH_TTL_MS)]);
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: Math.floor(ACCESS_TTL_MS / 1000),
      refresh_token: refresh,
      scope: formatScopes(scopes),
    };
  }

  /** Ends grants: their tokens are deleted (so they stop resolving at once). */
  async revokeGrants(m: EntityManager, grantIds: string[]): Promise<void> {
    if (grantIds.length === 0) return;
    const res = await m
      .createQueryBuilder()
      .delete()
      .from(OAuth2TokenEntity)
      .where('grant_id IN (:...grantIds)', { grantIds })
      .returning('id')
      .execute();
    // This process's caches drop the tokens at once; the trigger tells every instance.
    for (const row of res.raw as Array<{ id: string }>) {
      this.notifications.publishLocal(CHANGES_CHANNEL, `b:${row.id}`);
    }
    await m
      .getRepository(OAuth2GrantEntity)
      .update({ id: In(grantIds) }, { revokedAt: new Date() });
  }

  /** Revokes every grant a user gave an application (authorization removed). */
  async revokeForUserAndApp(
    m: EntityManager,
    userId: string,
    applicationId: string,
  ): Promise<void> {
    const grants = await m
      .getRepository(OAuth2GrantEntity)
      .find({ where: { userId, applicationId }, select: { id: true } });
    await this.revokeGrants(
      m,
      grants.map((g) => g.id),
    );
  }

  /** RFC 7662: tokens of other clients, expired, used or revoked ones are simply inactive. */
  /** Hot path: the token and its user in one statement. */
  async introspect(
    app: Readonly<ApplicationEntity>,
    token: string,
  ): Promise<OAuth2IntrospectResponse> {
    const hash = sha256(token);
    const key = `${app.id}:${hash.toString('base64')}`;
    const hit = this.introspections.get(key);
    if (hit) return hit;
    const generation = this.introspections.currentGeneration;
    const [row] = await INTROSPECTED.run(this.db, [hash, app.id]);
    const expiresAt = row ? new Date(row.expires_at).getTime() : 0;
    if (!row || expiresAt <= Date.now()) return { active: false };
    const answer: OAuth2IntrospectResponse = {
      active: true,
      client_id: app.id,
      sub: row.user_id,
      scope: formatScopes(row.scopes),
      token_type: row.kind === 'access' ? 'Bearer' : 'refresh_token',
      exp: Math.floor(expiresAt / 1000),
      iat: Math.floor(new Date(row.created_at).getTime() / 1000),
      username: row.username,
    };
    const tags = [`b:${row.id}`, `u:${row.user_id}`, `a:${app.id}`];
    this.introspections.set(key, answer, tags, generation, Date.now(), expiresAt);
    return answer;
  }

  /** RFC 7009: revoking either token of a grant ends the grant; unknown tokens are a no-op. */
  async revoke(app: ApplicationEntity, token: string): Promise<void> {
    await this.db.transaction(async (m) => {
      const row = await m.getRepository(OAuth2TokenEntity).findOneBy({ tokenHash: sha256(token) });
      if (row && row.applicationId === app.id) await this.revokeGrants(m, [row.grantId]);
    });
  }
}
