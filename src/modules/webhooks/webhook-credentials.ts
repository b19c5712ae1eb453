import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ParleyRequest } from '../../common/auth/caller';
import { RouteCredentials, type RouteCredentialResolver } from '../../common/auth/route-credential';
import { constantTimeEqual, decryptSecret, sha256 } from '../../common/crypto/tokens';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { parseSnowflake } from '../../common/snowflake/snowflake';
import { AppConfig } from '../../config/app.config';
import { PreparedStatement } from '../../database/prepared';
import { WebhookTokenCache, type SigningSecret } from './webhook-token-cache';
import { isInteractionToken } from '../interactions/interaction-tokens';

const TOKEN_RE = /^[A-Za-z0-9]{64}$/;

const TOKEN_HASH = new PreparedStatement<{
  token_hash: Buffer;
  signing_secret_encrypted: string | null;
}>(
  'parley_webhook_credentials',
  'SELECT token_hash, signing_secret_encrypted FROM webhooks WHERE id = $1',
);

/** A webhook whose id and token matched: what its routes need to act for it. */
export interface AuthenticatedWebhook {
  webhookId: string;
  tokenHash: Buffer;
  signing: SigningSecret | null;
}

/**
 * The `webhook` path credential (`/webhooks/{webhook_id}/{token}/…`, `@WebhookTokenAuth()`):
 * checks id + token in constant time against the cached token hash (≤ 5 s in process, else one
 * indexed lookup), with the signing secret cached alongside. It runs in the caller guard, before
 * the rate limiter and before the body is read: a wrong token costs a cache hit or one lookup,
 * is counted against the caller's address (never the webhook's own bucket), and is answered
 * 404 UNKNOWN_WEBHOOK without reading what was sent.
 */
@Injectable()
export class WebhookCredentials
  implements RouteCredentialResolver<AuthenticatedWebhook | object>, OnModuleInit
{
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cache: WebhookTokenCache,
    private readonly config: AppConfig,
    private readonly registry: RouteCredentials,
  ) {}

  onModuleInit(): void {
    this.registry.register('webhook', this);
  }

  refusal(): ApiError {
    return new ApiError(ErrorCode.UnknownWebhook);
  }

  resolve(req: ParleyRequest): Promise<AuthenticatedWebhook | object | null> {
    const params = (req.params ?? {}) as Record<string, string | undefined>;
    const webhookId = parseSnowflake(params.webhook_id);
    const token = params.token;
    // An interaction's webhook (a follow-up): its token is checked by the interactions module.
    if (isInteractionToken(token)) {
      return this.registry.resolver('interaction').resolve(req) as Promise<object | null>;
    }
    if (!webhookId || typeof token !== 'string') return Promise.resolve(null);
    return this.authenticate(webhookId, token);
  }

  /** The webhook when `token` is its token; null otherwise. */
  async authenticate(webhookId: string, token: string): Promise<AuthenticatedWebhook | null> {
    if (!TOKEN_RE.test(token)) return null;
    const given = sha256(token);
    let cached = this.cache.get(webhookId);
    if (!cached) {
      const rows = await TOKEN_HASH.run(this.dataSource, [webhookId]);
      if (!rows[0]) return null;
      const sealed = rows[0].signing_secret_encrypted;
      const signing = sealed
        ? { key: Buffer.from(decryptSecret(this.config.secretKey, sealed), 'utf8'), sealed }
        : null;
      this.cache.set(webhookId, rows[0].token_hash, signing);
      cached = { tokenHash: rows[0].token_hash, signing, expiresAt: 0 };
    }
    if (!constantTimeEqual(cached.tokenHash, given)) return null;
    return { webhookId, tokenHash: given, signing: cached.signing };
  }

  /** Whether the webhook still exists with this token hash (read from the table). */
  async stillHolds(webhookId: string, tokenHash: Buffer): Promise<boolean> {
    const rows = await TOKEN_HASH.run(this.dataSource, [webhookId]);
    return !!rows[0] && constantTimeEqual(rows[0].token_hash, tokenHash);
  }
}
