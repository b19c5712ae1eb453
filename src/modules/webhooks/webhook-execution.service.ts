import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { IncomingHttpHeaders } from 'node:http';
import { DataSource } from 'typeorm';
import type { ReceivedPayload } from '../../common/auth/caller';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import type { MessageResponse } from '../guilds/guild.response';
import type { MessageDraft } from '../guilds/embeds/embed';
import { MessagesService, type WebhookPost } from '../guilds/messages.service';
import { WebhookTokenCache } from './webhook-token-cache';
import { firstHeader, type DeliveryFormat } from './delivery';
import { DeliveryParser } from './delivery-parser';
import { WebhookCredentials, type AuthenticatedWebhook } from './webhook-credentials';

/** What an execute answers: the posted message, or nothing (204 / chatcompat `ok`). */
export type ExecuteResult = { posted: true; message: MessageResponse } | { posted: false };

const MAX_DELIVERY_ID = 100;

/**
 * For signed routes, the sealed secret the delivery was checked against (null: none), which the
 * INSERT re-checks; undefined on routes that take no signature.
 */
type SecretCheck = WebhookPost['secretCheck'];

// A delivery id counts for a day; an older row is reclaimed instead of blocking forever.
const FORGET_DELIVERY_SQL =
  'DELETE FROM webhook_deliveries WHERE webhook_id = $1 AND delivery_id = $2';

const RECORD_DELIVERY_SQL = `
  INSERT INTO webhook_deliveries (webhook_id, delivery_id) VALUES ($1, $2)
  ON CONFLICT (webhook_id, delivery_id) DO UPDATE SET created_at = now()
   WHERE webhook_deliveries.created_at < now() - interval '1 day'
  RETURNING webhook_id`;

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
 * on a worker thread when large), then one INSERT (MessagesService, the messages' one writer). No outbound HTTP (avatar URLs are stored as
 * given), no channel row update.
 */
@Injectable()
export class WebhookExecutionService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly messages: MessagesService,
    private readonly cache: WebhookTokenCache,
    private readonly credentials: WebhookCredentials,
    private readonly parser: DeliveryParser,
  ) {}

  /**
   * Posts the message (MessagesService: one INSERT, group-committed); 404 when the webhook
   * vanished since the token check, 401 when its signing secret changed (on another instance)
   * since the delivery was checked.
   */
  private async post(
    webhookId: string,
    tokenHash: Buffer,
    draft: MessageDraft,
    secretCheck?: SecretCheck,
  ): Promise<MessageResponse> {
    const message = await this.messages.postAsWebhook({ webhookId, tokenHash, secretCheck, draft });
    if (!message) {
      this.cache.evict(webhookId);
      if (secretCheck && (await this.credentials.stillHolds(webhookId, tokenHash))) {
        throw new ApiError(ErrorCode.InvalidWebhookSignature);
      }
      throw new ApiError(ErrorCode.UnknownWebhook);
    }
    return message;
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
