import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { IncomingHttpHeaders } from 'node:http';
import { DataSource } from 'typeorm';
import { constantTimeEqual, decryptSecret, sha256 } from '../../common/crypto/tokens';
import { ApiError, type FieldError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { webhookAuthor } from '../guilds/guild.mapper';
import type { MessageResponse } from '../guilds/guild.response';
import { transformChatCompat } from './transformers/chatcompat.transformer';
import {
  MAX_EMBEDS,
  MAX_USERNAME,
  normalizeDraft,
  type Embed,
  type MessageDraft,
} from '../guilds/embeds/embed';
import { transformErrorTracker } from './transformers/errortracker.transformer';
import { asRecord } from './transformers/read';
import { transformRepoHost } from './transformers/repohost.transformer';
import { EMBED_LIMITS } from '../guilds/embeds/truncate';
import { WebhookTokenCache, type SigningSecret } from './webhook-token-cache';
import { GroupCommit } from '../../database/group-commit';
import { PreparedStatement } from '../../database/prepared';
import { AppConfig } from '../../config/app.config';
import { verifyDeliverySignature, type SignatureScheme } from './webhook-signature';

/** What an execute answers: the posted message, or nothing (204 / chatcompat `ok`). */
export type ExecuteResult = { posted: true; message: MessageResponse } | { posted: false };

const TOKEN_RE = /^[A-Za-z0-9]{64}$/;
const MAX_DELIVERY_ID = 100;

// One statement both posts and re-checks the webhook: if it was deleted (on any instance) or its
// token no longer matches, nothing is inserted; on signed routes ($8) neither is anything when the
// signing secret is no longer the one the delivery was checked against ($9, sealed; null = none).
// Channel, name and avatar come from the row as it is now, so a move or rename elsewhere is
// honoured without cache invalidation.
const INSERT_MESSAGE = new PreparedStatement<InsertedRow>(
  'parley_insert_webhook_message',
  `
  INSERT INTO messages (id, channel_id, author_id, webhook_id, webhook_name, webhook_avatar, content, embeds)
  SELECT $1, w.channel_id, NULL, w.id, COALESCE($3::varchar, w.name), COALESCE($4::text, w.avatar), $5, $6::jsonb
    FROM webhooks w
   WHERE w.id = $2 AND w.token_hash = $7
     AND (NOT $8::boolean OR w.signing_secret_encrypted IS NOT DISTINCT FROM $9::text)
  RETURNING id::text AS id, channel_id::text AS channel_id, webhook_name, webhook_avatar, created_at`,
);

// The same for a batch of messages (group commit): one statement, one commit, whatever the batch
// size. Rows whose webhook vanished or whose token no longer matches are simply not returned.
const INSERT_MESSAGES = new PreparedStatement<InsertedRow>(
  'parley_insert_webhook_messages',
  `
  INSERT INTO messages (id, channel_id, author_id, webhook_id, webhook_name, webhook_avatar, content, embeds)
  SELECT v.id, w.channel_id, NULL, w.id, COALESCE(v.name, w.name), COALESCE(v.avatar, w.avatar), v.content, v.embeds
    FROM unnest($1::bigint[], $2::bigint[], $3::varchar[], $4::text[], $5::varchar[], $6::jsonb[], $7::bytea[],
                $8::boolean[], $9::text[])
         AS v(id, webhook_id, name, avatar, content, embeds, token_hash, check_secret, secret)
    JOIN webhooks w ON w.id = v.webhook_id AND w.token_hash = v.token_hash
     AND (NOT v.check_secret OR w.signing_secret_encrypted IS NOT DISTINCT FROM v.secret)
  RETURNING id::text AS id, channel_id::text AS channel_id, webhook_name, webhook_avatar, created_at`,
);

const TOKEN_HASH = new PreparedStatement<{
  token_hash: Buffer;
  signing_secret_encrypted: string | null;
}>(
  'parley_webhook_credentials',
  'SELECT token_hash, signing_secret_encrypted FROM webhooks WHERE id = $1',
);

/** What an execute learnt from the token check. */
export interface AuthenticatedWebhook {
  tokenHash: Buffer;
  signing: SigningSecret | null;
}

/**
 * For signed routes, the sealed secret the delivery was checked against (null: none), which the
 * INSERT re-checks; undefined on routes that take no signature.
 */
type SecretCheck = { sealed: string | null } | undefined;

interface PendingMessage {
  id: string;
  webhookId: string;
  tokenHash: Buffer;
  secretCheck: SecretCheck;
  draft: MessageDraft;
}

// A delivery id counts for a day; an older row is reclaimed instead of blocking forever.
const FORGET_DELIVERY_SQL =
  'DELETE FROM webhook_deliveries WHERE webhook_id = $1 AND delivery_id = $2';

const RECORD_DELIVERY_SQL = `
  INSERT INTO webhook_deliveries (webhook_id, delivery_id) VALUES ($1, $2)
  ON CONFLICT (webhook_id, delivery_id) DO UPDATE SET created_at = now()
   WHERE webhook_deliveries.created_at < now() - interval '1 day'
  RETURNING webhook_id`;

interface InsertedRow {
  id: string;
  channel_id: string;
  webhook_name: string | null;
  webhook_avatar: string | null;
  created_at: Date;
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s.trim() !== '' ? s.trim() : undefined;
};

/** Event-name headers, in the order read: GitHub's, then those of its compatible hosts. */
const EVENT_HEADERS = [
  'x-github-event',
  'x-gitea-event',
  'x-forgejo-event',
  'x-gogs-event',
  'x-event-key',
];
const DELIVERY_HEADERS = [
  'x-github-delivery',
  'x-gitea-delivery',
  'x-forgejo-delivery',
  'x-gogs-delivery',
];

const firstHeader = (headers: IncomingHttpHeaders, names: string[]): string | undefined => {
  for (const name of names) {
    const v = header(headers, name);
    if (v !== undefined) return v;
  }
  return undefined;
};

/**
 * Executes webhooks: the Discord-style plain body and the three foreign formats. Hot path
 * (ARCHITECTURE.md §7): a token check (cached ≤ 5 s in process, else one indexed lookup) and one INSERT.
 * No outbound HTTP (avatar URLs are stored as given), no channel row update.
 */
@Injectable()
export class WebhookExecutionService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly snowflakes: SnowflakeService,
    private readonly cache: WebhookTokenCache,
    private readonly config: AppConfig,
  ) {}

  /** Messages posted within the same moment share one INSERT and one commit (ARCHITECTURE.md §7). */
  private readonly writer = new GroupCommit<PendingMessage, InsertedRow | null>(
    (batch) => this.insertBatch(batch),
    { maxBatch: 500, maxInFlight: 4 },
  );

  /**
   * Checks id + token (constant time); returns the token hash and the signing secret (both cached
   * together: no query of its own for the secret). Wrong id or token → 404.
   */
  async authenticate(webhookId: string, token: string): Promise<AuthenticatedWebhook> {
    if (!TOKEN_RE.test(token)) throw new ApiError(ErrorCode.UnknownWebhook);
    const given = sha256(token);
    let cached = this.cache.get(webhookId);
    if (!cached) {
      const rows = await TOKEN_HASH.run(this.dataSource, [webhookId]);
      if (!rows[0]) throw new ApiError(ErrorCode.UnknownWebhook);
      const sealed = rows[0].signing_secret_encrypted;
      const signing = sealed
        ? { key: Buffer.from(decryptSecret(this.config.secretKey, sealed), 'utf8'), sealed }
        : null;
      this.cache.set(webhookId, rows[0].token_hash, signing);
      cached = { tokenHash: rows[0].token_hash, signing, expiresAt: 0 };
    }
    if (!constantTimeEqual(cached.tokenHash, given)) throw new ApiError(ErrorCode.UnknownWebhook);
    return { tokenHash: given, signing: cached.signing };
  }

  /**
   * With a signing secret set, a delivery must carry a valid signature of the bytes received
   * (401 otherwise, before anything is parsed or recorded). Returns what the INSERT re-checks.
   */
  private checkSignature(
    auth: AuthenticatedWebhook,
    scheme: SignatureScheme,
    headers: IncomingHttpHeaders,
    rawBody: Buffer,
  ): SecretCheck {
    if (auth.signing && !verifyDeliverySignature(scheme, auth.signing.key, headers, rawBody)) {
      throw new ApiError(ErrorCode.InvalidWebhookSignature);
    }
    return { sealed: auth.signing?.sealed ?? null };
  }

  /**
   * Inserts the message; 404 when the webhook vanished since the token check, 401 when its
   * signing secret changed (on another instance) since the delivery was checked.
   */
  private async post(
    webhookId: string,
    tokenHash: Buffer,
    draft: MessageDraft,
    secretCheck?: SecretCheck,
  ): Promise<MessageResponse> {
    const id = this.snowflakes.next();
    const row = await this.writer.submit({ id, webhookId, tokenHash, secretCheck, draft });
    if (!row) {
      this.cache.evict(webhookId);
      if (secretCheck) {
        const now = await TOKEN_HASH.run(this.dataSource, [webhookId]);
        if (now[0] && constantTimeEqual(now[0].token_hash, tokenHash)) {
          throw new ApiError(ErrorCode.InvalidWebhookSignature);
        }
      }
      throw new ApiError(ErrorCode.UnknownWebhook);
    }
    return {
      id: row.id,
      channel_id: row.channel_id,
      content: draft.content ?? '',
      embeds: draft.embeds,
      author: webhookAuthor(webhookId, row.webhook_name, row.webhook_avatar),
      webhook_id: webhookId,
      created_at: new Date(row.created_at).toISOString(),
    };
  }

  /** Writes a batch; a batch the database refuses is retried row by row, so one bad row fails alone. */
  private async insertBatch(batch: PendingMessage[]): Promise<Array<InsertedRow | null | Error>> {
    if (batch.length === 1) return [await this.insertOne(batch[0])];
    let rows: InsertedRow[];
    try {
      rows = await INSERT_MESSAGES.run(this.dataSource, [
        batch.map((m) => m.id),
        batch.map((m) => m.webhookId),
        batch.map((m) => m.draft.username ?? null),
        batch.map((m) => m.draft.avatar_url ?? null),
        batch.map((m) => m.draft.content ?? ''),
        batch.map((m) => JSON.stringify(m.draft.embeds)),
        batch.map((m) => m.tokenHash),
        batch.map((m) => m.secretCheck !== undefined),
        batch.map((m) => m.secretCheck?.sealed ?? null),
      ]);
    } catch {
      return Promise.all(batch.map((m) => this.insertOne(m).catch((e: Error) => e)));
    }
    const byId = new Map(rows.map((r) => [r.id, r]));
    return batch.map((m) => byId.get(m.id) ?? null);
  }

  private async insertOne(m: PendingMessage): Promise<InsertedRow | null> {
    const rows = await INSERT_MESSAGE.run(this.dataSource, [
      m.id,
      m.webhookId,
      m.draft.username ?? null,
      m.draft.avatar_url ?? null,
      m.draft.content ?? '',
      JSON.stringify(m.draft.embeds),
      m.tokenHash,
      m.secretCheck !== undefined,
      m.secretCheck?.sealed ?? null,
    ]);
    return rows[0] ?? null;
  }

  private async postIfAny(
    webhookId: string,
    tokenHash: Buffer,
    draft: MessageDraft | null,
    secretCheck?: SecretCheck,
  ): Promise<ExecuteResult> {
    if (!draft) return { posted: false };
    return { posted: true, message: await this.post(webhookId, tokenHash, draft, secretCheck) };
  }

  /** Discord-style `{content, embeds, username, avatar_url}`. Unknown fields are ignored. */
  async executePlain(webhookId: string, token: string, body: unknown): Promise<ExecuteResult> {
    const { tokenHash } = await this.authenticate(webhookId, token);
    const p = payloadObject(body);
    const errors: FieldError[] = [];
    const str = (key: string, max: number): string | undefined => {
      const v = p[key];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'string') {
        errors.push({
          path: key,
          code: FieldErrorCode.BaseTypeString,
          message: `${key} must be a string`,
        });
      } else if (v.length > max) {
        errors.push({
          path: key,
          code: FieldErrorCode.BaseTypeMaxLength,
          message: `${key} must be at most ${max} characters`,
        });
      } else return v;
      return undefined;
    };
    const content = str('content', EMBED_LIMITS.content);
    const username = str('username', MAX_USERNAME);
    const avatarUrl = str('avatar_url', 2048);
    let embeds: Embed[] = [];
    if (p.embeds !== undefined && p.embeds !== null) {
      if (!Array.isArray(p.embeds) || !p.embeds.every((e) => asRecord(e) !== undefined)) {
        errors.push({
          path: 'embeds',
          code: FieldErrorCode.BaseTypeArray,
          message: 'embeds must be an array of objects',
        });
      } else if (p.embeds.length > MAX_EMBEDS) {
        errors.push({
          path: 'embeds',
          code: FieldErrorCode.BaseTypeMaxLength,
          message: `At most ${MAX_EMBEDS} embeds`,
        });
      } else embeds = p.embeds as Embed[];
    }
    if (errors.length > 0) throw ApiError.form(errors);
    const draft = normalizeDraft({ content, username, avatar_url: avatarUrl, embeds });
    if (!draft) throw new ApiError(ErrorCode.EmptyMessage);
    return { posted: true, message: await this.post(webhookId, tokenHash, draft) };
  }

  /**
   * GitHub-format deliveries, and the GitHub-compatible ones of Gitea, Forgejo and Gogs. The
   * event comes from the first of EVENT_HEADERS present; the delivery id (DELIVERY_HEADERS)
   * de-duplicates redeliveries for a day. With a signing secret, `X-Hub-Signature-256` must sign
   * the raw body, checked before anything is parsed or a delivery id recorded.
   */
  async executeRepoHost(
    webhookId: string,
    token: string,
    headers: IncomingHttpHeaders,
    body: unknown,
    rawBody: Buffer,
  ): Promise<ExecuteResult> {
    const auth = await this.authenticate(webhookId, token);
    const secretCheck = this.checkSignature(auth, 'repohost', headers, rawBody);
    const payload = payloadObject(body);
    const event = firstHeader(headers, EVENT_HEADERS) ?? '';
    const draft = transformRepoHost(event, payload);
    if (!draft) return { posted: false };
    const delivery = firstHeader(headers, DELIVERY_HEADERS);
    if (delivery && !(await this.firstDelivery(webhookId, delivery))) return { posted: false };
    try {
      return await this.postIfAny(webhookId, auth.tokenHash, draft, secretCheck);
    } catch (err) {
      // Nothing was posted: the sender's redelivery must not be taken for a duplicate.
      if (delivery) await this.forgetDelivery(webhookId, delivery);
      throw err;
    }
  }

  /**
   * Sentry-format deliveries; the resource comes from `Sentry-Hook-Resource` or `X-Sentry-Event`.
   * With a signing secret, `Sentry-Hook-Signature` must sign the raw body.
   */
  async executeErrorTracker(
    webhookId: string,
    token: string,
    headers: IncomingHttpHeaders,
    body: unknown,
    rawBody: Buffer,
  ): Promise<ExecuteResult> {
    const auth = await this.authenticate(webhookId, token);
    const secretCheck = this.checkSignature(auth, 'errortracker', headers, rawBody);
    const payload = payloadObject(body);
    const resource = header(headers, 'sentry-hook-resource') ?? header(headers, 'x-sentry-event');
    const draft = transformErrorTracker(resource, payload);
    return this.postIfAny(webhookId, auth.tokenHash, draft, secretCheck);
  }

  /** Slack-format incoming-webhook bodies. */
  async executeChatCompat(webhookId: string, token: string, body: unknown): Promise<ExecuteResult> {
    const { tokenHash } = await this.authenticate(webhookId, token);
    const payload = payloadObject(body);
    return this.postIfAny(webhookId, tokenHash, transformChatCompat(payload));
  }

  /** Releases a recorded delivery id whose message was not posted. Best effort. */
  private async forgetDelivery(webhookId: string, deliveryId: string): Promise<void> {
    await this.dataSource
      .query(FORGET_DELIVERY_SQL, [webhookId, deliveryId.slice(0, MAX_DELIVERY_ID)])
      .catch(() => undefined);
  }

  /** True the first time a delivery id is seen (within a day). */
  private async firstDelivery(webhookId: string, deliveryId: string): Promise<boolean> {
    try {
      const rows = await this.dataSource.query<unknown[]>(RECORD_DELIVERY_SQL, [
        webhookId,
        deliveryId.slice(0, MAX_DELIVERY_ID),
      ]);
      return rows.length > 0;
    } catch (err) {
      // 23503: the webhook row is gone (deleted on another instance since the cached check).
      if ((err as { driverError?: { code?: string } }).driverError?.code === '23503') {
        this.cache.evict(webhookId);
        throw new ApiError(ErrorCode.UnknownWebhook);
      }
      throw err;
    }
  }
}

/**
 * The JSON object of a foreign delivery. Senders may also post form-encoded `payload=<json>`
 * (GitHub's and Slack's form content type). Anything else is a 400, never a 500.
 */
export function payloadObject(body: unknown): Record<string, unknown> {
  let value = body;
  const form = asRecord(body);
  if (form && typeof form.payload === 'string' && Object.keys(form).length === 1) {
    try {
      value = JSON.parse(form.payload);
    } catch {
      throw new ApiError(ErrorCode.InvalidJson);
    }
  }
  const record = asRecord(value);
  if (!record) {
    throw ApiError.field(
      'root',
      FieldErrorCode.BaseTypeObject,
      'The request body must be a JSON object.',
    );
  }
  return record;
}
