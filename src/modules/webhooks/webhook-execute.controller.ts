import { Controller, Headers, Post, Query, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { HttpResponse } from '../../common/http/http-types';
import type { IncomingHttpHeaders } from 'node:http';
import { ReceivedBody, Uploads } from '../../common/http/body-reader';
import type { UploadedFiles } from '../../common/http/multipart';
import { AcceptsFiles, ForeignPayload } from '../../common/http/route-policy';
import type { ReceivedFile } from '../guilds/attachments/attachment-store';
import { WebhookFileIntake } from './webhook-file-intake';
import type { ReceivedPayload } from '../../common/auth/caller';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { RateLimit } from '../../common/rate-limit/rate-limit.decorator';
import { MessageResponse } from '../guilds/guild.response';
import {
  ChatCompatWebhookRequest,
  ErrorTrackerWebhook,
  ExecuteWebhookRequest,
  RepoHostWebhook,
} from './dto/webhook-payloads.dto';
import { sendExecuteResult } from './execute-response';
import type { AuthenticatedWebhook } from './webhook-credentials';
import { WebhookExecutionService } from './webhook-execution.service';
import { InteractionEntity } from '../interactions/interaction.entity';
import { InteractionFollowups } from '../interactions/interaction-followups';
import { CurrentWebhook, WebhookTokenAuth } from './webhook-token-auth.decorator';
import {
  CHATCOMPAT_EXAMPLES,
  ERRORTRACKER_EXAMPLES,
  EXECUTE_WEBHOOK_EXAMPLES,
  REPOHOST_EXAMPLES,
} from './webhooks.examples';

const WAIT = {
  name: 'wait',
  required: false,
  type: Boolean,
  description: 'true: answer 200 with the created message instead of 204',
};

/**
 * Executing webhooks: the token in the path is the credential, checked by `@WebhookTokenAuth`
 * before the rate limiter and before a byte of the body is read. Bodies are foreign payloads
 * (`@ForeignPayload`): kept as bytes, checked against the signing secret, and parsed by the
 * execution service (no whitelisting DTO: they are loose and must never be rejected for unknown
 * fields).
 */
@ApiTags('Webhooks')
@ApiExtraModels(RepoHostWebhook, ErrorTrackerWebhook, ChatCompatWebhookRequest)
@ApiParam({ name: 'webhook_id', type: String })
@ApiParam({ name: 'token', type: String })
@WebhookTokenAuth()
@Controller('webhooks/:webhook_id/:token')
export class WebhookExecuteController {
  constructor(
    private readonly execution: WebhookExecutionService,
    private readonly followups: InteractionFollowups,
  ) {}

  /** Discord-style execute: `{content, embeds, username, avatar_url}`. */
  @Post()
  @ForeignPayload()
  @AcceptsFiles(WebhookFileIntake)
  @RateLimit('webhook:execute', { global: false })
  @ApiOperation({
    operationId: 'execute_webhook',
    summary: 'Execute a webhook',
    description:
      'Posts a message in the Parley/Discord format: `content` and/or `embeds` (at most 10), ' +
      'with an optional `username` and `avatar_url` for this message. No Authorization header: ' +
      'the token in the path is the credential.',
  })
  @ApiBody({ type: ExecuteWebhookRequest, examples: EXECUTE_WEBHOOK_EXAMPLES })
  @ApiQuery(WAIT)
  @ApiOkResponse({ type: MessageResponse, description: 'Posted: the message (with wait=true).' })
  @ApiNoContentResponse({ description: 'Posted (without wait).' })
  @ApiErrors(
    ErrorCode.UnknownWebhook,
    ErrorCode.EmptyMessage,
    ['root', FieldErrorCode.BaseTypeObject],
    ['content', FieldErrorCode.BaseTypeMaxLength],
    ['embeds', FieldErrorCode.BaseTypeArray],
  )
  async execute(
    @CurrentWebhook() webhook: AuthenticatedWebhook | InteractionEntity,
    @Query('wait') wait: unknown,
    @Headers() headers: IncomingHttpHeaders,
    @ReceivedBody() payload: ReceivedPayload | null,
    @Uploads() uploads: UploadedFiles<ReceivedFile> | null,
    @Res({ passthrough: true }) res: HttpResponse,
  ): Promise<MessageResponse | string | undefined> {
    if (webhook instanceof InteractionEntity) {
      // `/webhooks/{application_id}/{interaction_token}`: an interaction's follow-up.
      const message = await this.followups.post(webhook, payload, uploads);
      return sendExecuteResult(res, { posted: true, message }, wait);
    }
    const result = await this.execution.execute('plain', { webhook, payload, headers, uploads });
    return sendExecuteResult(res, result, wait);
  }

  /**
   * Code-hosting events in GitHub's format, also sent by Gitea, Forgejo and Gogs; up to 25 MiB,
   * JSON or form-encoded `payload=`. Unsupported events → 204, nothing posted.
   */
  @Post('repohost')
  @ForeignPayload({ size: 'large' })
  @RateLimit('webhook:repohost', { global: false })
  @ApiOperation({
    operationId: 'execute_repohost_webhook',
    summary: 'Execute a webhook: code-hosting events',
    description:
      'Events in GitHub’s format, also sent by Gitea, Forgejo and Gogs; up to 25 MiB, JSON or ' +
      'form-encoded `payload=`. Unsupported events and repeated delivery IDs: 204, nothing ' +
      'posted. With a signing secret set, the signature header must sign the raw body (401 ' +
      'otherwise). No Authorization header: the token in the path is the credential.',
  })
  @ApiBody({ type: RepoHostWebhook, examples: REPOHOST_EXAMPLES })
  @ApiHeader({
    name: 'X-GitHub-Event',
    required: false,
    description: 'Event name, e.g. push',
    example: 'push',
  })
  @ApiHeader({ name: 'X-Gitea-Event', required: false, description: 'Event name (Gitea)' })
  @ApiHeader({ name: 'X-Forgejo-Event', required: false, description: 'Event name (Forgejo)' })
  @ApiHeader({ name: 'X-Gogs-Event', required: false, description: 'Event name (Gogs)' })
  @ApiHeader({ name: 'X-Event-Key', required: false, description: 'Alternative event header' })
  @ApiHeader({
    name: 'X-GitHub-Delivery',
    required: false,
    description:
      'Delivery id; a repeated id is accepted once per day (also X-Gitea-Delivery, ' +
      'X-Forgejo-Delivery, X-Gogs-Delivery). A refused delivery does not use its id up.',
  })
  @ApiHeader({ name: 'X-Gitea-Delivery', required: false, description: 'Delivery id (Gitea)' })
  @ApiHeader({ name: 'X-Forgejo-Delivery', required: false, description: 'Delivery id (Forgejo)' })
  @ApiHeader({ name: 'X-Gogs-Delivery', required: false, description: 'Delivery id (Gogs)' })
  @ApiHeader({
    name: 'X-Hub-Signature-256',
    required: false,
    description:
      '`sha256=<hex HMAC-SHA256 of the raw body>` keyed with the signing secret; required when ' +
      'the webhook has one (`signing_secret_set`). Gogs, which sends only `X-Gogs-Signature` ' +
      '(bare hex), is checked on that header instead.',
  })
  @ApiQuery(WAIT)
  @ApiOkResponse({
    type: MessageResponse,
    description: 'Posted: the message (with wait=true and a rendered event).',
  })
  @ApiNoContentResponse({ description: 'Accepted (posted, or nothing to post).' })
  @ApiErrors(ErrorCode.UnknownWebhook, ErrorCode.InvalidWebhookSignature, [
    'root',
    FieldErrorCode.BaseTypeObject,
  ])
  async repoHost(
    @CurrentWebhook() webhook: AuthenticatedWebhook,
    @Query('wait') wait: unknown,
    @Headers() headers: IncomingHttpHeaders,
    @ReceivedBody() payload: ReceivedPayload | null,
    @Res({ passthrough: true }) res: HttpResponse,
  ): Promise<MessageResponse | string | undefined> {
    const result = await this.execution.execute('repohost', { webhook, payload, headers });
    return sendExecuteResult(res, result, wait);
  }

  /** Error-tracker (Sentry-format) events, legacy and integration-platform formats. */
  @Post('errortracker')
  @ForeignPayload()
  @RateLimit('webhook:errortracker', { global: false })
  @ApiOperation({
    operationId: 'execute_errortracker_webhook',
    summary: 'Execute a webhook: error-tracker events',
    description:
      'Sentry-format events (legacy and integration-platform formats). With a signing secret ' +
      'set, `Sentry-Hook-Signature` must sign the raw body (401 otherwise). No Authorization ' +
      'header: the token in the path is the credential.',
  })
  @ApiBody({ type: ErrorTrackerWebhook, examples: ERRORTRACKER_EXAMPLES })
  @ApiHeader({
    name: 'Sentry-Hook-Resource',
    required: false,
    description: 'Resource: issue, event_alert, metric_alert, error, comment, …',
  })
  @ApiHeader({
    name: 'Sentry-Hook-Signature',
    required: false,
    description:
      "<hex HMAC-SHA256 of the raw body> keyed with the signing secret (the integration's " +
      'client secret); required when the webhook has one (`signing_secret_set`).',
  })
  @ApiQuery(WAIT)
  @ApiOkResponse({
    type: MessageResponse,
    description: 'Posted: the message (with wait=true and a rendered event).',
  })
  @ApiNoContentResponse({ description: 'Accepted (posted, or nothing to post).' })
  @ApiErrors(ErrorCode.UnknownWebhook, ErrorCode.InvalidWebhookSignature, [
    'root',
    FieldErrorCode.BaseTypeObject,
  ])
  async errorTracker(
    @CurrentWebhook() webhook: AuthenticatedWebhook,
    @Query('wait') wait: unknown,
    @Headers() headers: IncomingHttpHeaders,
    @ReceivedBody() payload: ReceivedPayload | null,
    @Res({ passthrough: true }) res: HttpResponse,
  ): Promise<MessageResponse | string | undefined> {
    const result = await this.execution.execute('errortracker', { webhook, payload, headers });
    return sendExecuteResult(res, result, wait);
  }

  /** Chat-tool (Slack-format) bodies: answers `200 ok` (text/plain) like the original. */
  @Post('chatcompat')
  @ForeignPayload()
  @RateLimit('webhook:execute', { global: false })
  @ApiOperation({
    operationId: 'execute_chatcompat_webhook',
    summary: 'Execute a webhook: chat-tool format',
    description:
      'Slack-format incoming-webhook bodies (`text`, `attachments`); answers `ok` (text/plain) ' +
      'like the original. No Authorization header: the token in the path is the credential.',
  })
  @ApiBody({ type: ChatCompatWebhookRequest, examples: CHATCOMPAT_EXAMPLES })
  @ApiQuery(WAIT)
  @ApiProduces('text/plain', 'application/json')
  @ApiOkResponse({ description: 'Posted: `ok` (text/plain), or the message with wait=true.' })
  @ApiNoContentResponse({ description: 'Nothing to post.' })
  @ApiErrors(ErrorCode.UnknownWebhook, ['root', FieldErrorCode.BaseTypeObject])
  async chatCompat(
    @CurrentWebhook() webhook: AuthenticatedWebhook,
    @Query('wait') wait: unknown,
    @Headers() headers: IncomingHttpHeaders,
    @ReceivedBody() payload: ReceivedPayload | null,
    @Res({ passthrough: true }) res: HttpResponse,
  ): Promise<MessageResponse | string | undefined> {
    const result = await this.execution.execute('chatcompat', { webhook, payload, headers });
    return sendExecuteResult(res, result, wait, 'chatcompat');
  }
}
