import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { IncomingHttpHeaders } from 'node:http';
import { DataSource } from 'typeorm';
import type { ReceivedPayload } from '../../common/auth/caller';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { webhookAuthor } from '../guilds/guild.mapper';
import type { MessageResponse } from '../guilds/guild.response';
import type { MessageDraft } from '../guilds/embeds/embed';
import { WebhookTokenCache } from './webhook-token-cache';
import { GroupCommit } from '../../database/group-commit';
import { PreparedStatement } from '../../database/prepared';
import { firstHeader, type DeliveryFormat } from './delivery';
import { DeliveryParser } from './delivery-parser';
import { WebhookCredentials, type AuthenticatedWebhook } from './webhook-credentials';

/** What an execute answers: the posted message, or nothing (204 / chatcompat `ok`). */
export type ExecuteResult = { posted: true; message: MessageResponse } | { posted: false };

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

const DELIVERY_HEADERS = [
  'x-github-delivery',
  'x-gitea-delivery',
  'x-forgejo-delivery',
  'x-gogs-delivery',
];

/** A delivery as its route received it, after the token check (webhook-credentials.ts). */
export interface Delivery {
  webhook: AuthenticatedWebhook;
  /** The body as received; null when there was none of a JSON or form type. */
  payload: ReceivedPayload | null;
  headers: IncomingHttpHeaders;
}

/** Routes whose deliveries may be signed (the webhook's signing secret, when set). */
const SIGNED_FORMATS = new Set<DeliveryFormat>(['repohost', 'errortracker']);

/**
 * Executes webhooks: the Discord-style plain body and the three foreign formats. Hot path
 * (ARCHITECTURE.md §7): the token was checked by the route's guard (cached ≤ 5 s in process, else
 * one indexed lookup), the body is rendered (delivery-parser.ts: on the event loop when small,
 * on a worker thread when large), then one INSERT. No outbound HTTP (avatar URLs are stored as
 * given), no channel row update.
 */
@Injectable()
export class WebhookExecutionService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly snowflakes: SnowflakeService,
    private readonly cache: WebhookTokenCache,
    private readonly credentials: WebhookCredentials,
    private readonly parser: DeliveryParser,
  ) {}

  /** Messages posted within the same moment share one INSERT and one commit (ARCHITECTURE.md §7). */
  private readonly writer = new GroupCommit<PendingMessage, InsertedRow | null>(
    (batch) => this.insertBatch(batch),
    { maxBatch: 500, maxInFlight: 4 },
  );

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
      if (secretCheck && (await this.credentials.stillHolds(webhookId, tokenHash))) {
        throw new ApiError(ErrorCode.InvalidWebhookSignature);
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

  /**
   * Renders a delivery and posts what it yields. On signed routes the signature is checked over
   * the exact bytes first (401), and the INSERT re-checks the sealed secret it was checked
   * against, so a secret changed meanwhile on another instance refuses it too. Returns whether
   * anything was posted.
   */
  async execute(format: DeliveryFormat, delivery: Delivery): Promise<ExecuteResult> {
    const { webhook } = delivery;
    const signed = SIGNED_FORMATS.has(format);
    const draft = await this.parser.render({
      format,
      payload: delivery.payload,
      headers: delivery.headers,
      signingKey: signed ? (webhook.signing?.key ?? null) : null,
    });
    if (!draft) {
      if (format === 'plain') throw new ApiError(ErrorCode.EmptyMessage);
      return { posted: false };
    }
    const secretCheck: SecretCheck = signed
      ? { sealed: webhook.signing?.sealed ?? null }
      : undefined;
    // GitHub-style delivery ids de-duplicate redeliveries for a day (after the signature check).
    const deliveryId =
      format === 'repohost' ? firstHeader(delivery.headers, DELIVERY_HEADERS) : undefined;
    if (deliveryId && !(await this.firstDelivery(webhook.webhookId, deliveryId))) {
      return { posted: false };
    }
    try {
      const message = await this.post(webhook.webhookId, webhook.tokenHash, draft, secretCheck);
      return { posted: true, message };
    } catch (err) {
      // Nothing was posted: the sender's redelivery must not be taken for a duplicate.
      if (deliveryId) await this.forgetDelivery(webhook.webhookId, deliveryId);
      throw err;
    }
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
