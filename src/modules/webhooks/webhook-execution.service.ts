import { Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import type { ReceivedPayload } from '../../common/auth/caller';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import type { UploadedFiles } from '../../common/http/multipart';
import type { ReceivedFile } from '../guilds/attachments/attachment-store';
import { planAttachments } from '../guilds/attachments/message-attachments';
import type { MessageDraft } from '../guilds/embeds/embed';
import type { MessageResponse } from '../guilds/guild.response';
import { MessagesService } from '../guilds/messages.service';
import type { WebhookPost } from '../guilds/webhook-messages.writer';
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
  /** A plain execute's files (multipart), stored already. */
  uploads?: UploadedFiles<ReceivedFile> | null;
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
    private readonly messages: MessagesService,
    private readonly cache: WebhookTokenCache,
    private readonly credentials: WebhookCredentials,
    private readonly parser: DeliveryParser,
  ) {}

  /**
   * Posts the message (MessagesService: one INSERT, group-committed, that also records a
   * repository host's delivery id); 404 when the webhook vanished since the token check, 401 when
   * its signing secret changed (on another instance) since the delivery was checked. Null for a
   * redelivery (its id was seen within a day): nothing is posted.
   */
  private async post(post: WebhookPost): Promise<MessageResponse | null> {
    const outcome = await this.messages.postAsWebhook(post);
    if (outcome.kind === 'posted') return outcome.message;
    if (outcome.kind === 'duplicate') return null;
    this.cache.evict(post.webhookId);
    if (post.secretCheck && (await this.credentials.stillHolds(post.webhookId, post.tokenHash))) {
      throw new ApiError(ErrorCode.InvalidWebhookSignature);
    }
    throw new ApiError(ErrorCode.UnknownWebhook);
  }

  /**
   * Renders a delivery and posts what it yields. On signed routes the signature is checked over
   * the exact bytes first (401), and the INSERT re-checks the sealed secret it was checked
   * against, so a secret changed meanwhile on another instance refuses it too. Returns whether
   * anything was posted.
   */
  async execute(format: DeliveryFormat, delivery: Delivery): Promise<ExecuteResult> {
    const { webhook } = delivery;
    // An interaction's token on a foreign format's route (follow-ups are plain executes only).
    if (!('webhookId' in webhook)) throw new ApiError(ErrorCode.UnknownWebhook);
    const signed = SIGNED_FORMATS.has(format);
    const files = format === 'plain' ? (delivery.uploads?.files ?? []) : [];
    const draft = await this.parser.render({
      format,
      payload: delivery.payload,
      headers: delivery.headers,
      signingKey: signed ? (webhook.signing?.key ?? null) : null,
      hasFiles: files.length > 0,
    });
    if (!draft) {
      if (format === 'plain') throw new ApiError(ErrorCode.EmptyMessage);
      return { posted: false };
    }
    const secretCheck: SecretCheck = signed
      ? { sealed: webhook.signing?.sealed ?? null }
      : undefined;
    // GitHub-style delivery ids de-duplicate redeliveries for a day (after the signature check),
    // recorded by the statement that posts the message: a refused post does not use the id up.
    const deliveryId =
      format === 'repohost' ? firstHeader(delivery.headers, DELIVERY_HEADERS) : undefined;
    const message = await this.post({
      webhookId: webhook.webhookId,
      tokenHash: webhook.tokenHash,
      secretCheck,
      draft,
      deliveryId: deliveryId?.slice(0, MAX_DELIVERY_ID),
      files: files.length > 0 ? this.filesOf(draft, files) : undefined,
    });
    if (message) delivery.uploads?.keep();
    return message ? { posted: true, message } : { posted: false };
  }

  /** The message's attachments: its files, named and described as its `attachments` says. */
  private filesOf(draft: MessageDraft, files: ReceivedFile[]): WebhookPost['files'] {
    const plan = planAttachments(draft.attachments, files, new Map(), []);
    return { channelId: files[0].channelId, attachments: plan.attachments };
  }
}
