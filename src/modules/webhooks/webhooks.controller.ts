import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { Caller } from '../../common/auth/caller';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { ParseSnowflakePipe } from '../../common/snowflake/parse-snowflake.pipe';
import { RequestAudit, type AuditContext } from '../audit/audit-context';
import { ApiAuditReason } from '../audit/audit-reason.decorator';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { UpdateWebhookDto, UpdateWebhookTokenDto } from './dto/update-webhook.dto';
import { WebhookResponse, WebhookTokenResponse } from './webhook.response';
import { WebhooksService } from './webhooks.service';
import { WebhookTokenAuth } from './webhook-token-auth.decorator';
import {
  CREATE_WEBHOOK_EXAMPLES,
  UPDATE_WEBHOOK_EXAMPLES,
  UPDATE_WEBHOOK_TOKEN_EXAMPLES,
} from './webhooks.examples';
import { ChannelId, WebhookId } from '../../common/snowflake/id-params';

/** Webhook management: MANAGE_WEBHOOKS in the webhook's guild, or the webhook's token. */
@ApiTags('Webhooks')
@Controller()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  /** Creates an incoming webhook (at most 15 per channel). */
  @Post('channels/:channel_id/webhooks')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'create_webhook',
    summary: 'Create a webhook',
    description:
      'An incoming webhook in the channel (at most 15 per channel). Needs MANAGE_WEBHOOKS. The ' +
      'answer holds its `token`: with the ID it is the credential of the execute routes.',
  })
  @ApiAuditReason()
  @ApiCreatedResponse({ type: WebhookResponse, description: 'The new webhook, with its token.' })
  @ApiErrors(
    ErrorCode.UnknownChannel,
    ErrorCode.MissingPermissions,
    ErrorCode.MaxWebhooksPerChannel,
    ['avatar', FieldErrorCode.ImageInvalid],
    ['avatar', FieldErrorCode.ImageTooLarge],
  )
  @ApiBody({ type: CreateWebhookDto, examples: CREATE_WEBHOOK_EXAMPLES })
  create(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @Body() dto: CreateWebhookDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<WebhookResponse> {
    return this.webhooks.create(caller.userId, channelId, dto, audit);
  }

  /** Webhooks of a channel. */
  @Get('channels/:channel_id/webhooks')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'list_channel_webhooks',
    summary: 'List a channel’s webhooks',
    description: 'Needs MANAGE_WEBHOOKS.',
  })
  @ApiOkResponse({ type: [WebhookResponse], description: 'The channel’s webhooks.' })
  @ApiErrors(ErrorCode.UnknownChannel, ErrorCode.MissingPermissions)
  listForChannel(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
  ): Promise<WebhookResponse[]> {
    return this.webhooks.listForChannel(caller.userId, channelId);
  }

  /** Webhooks of a guild. */
  @Get('guilds/:guild_id/webhooks')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'list_guild_webhooks',
    summary: 'List a guild’s webhooks',
    description: 'Needs MANAGE_WEBHOOKS.',
  })
  @ApiOkResponse({ type: [WebhookResponse], description: 'The guild’s webhooks.' })
  @ApiErrors(ErrorCode.UnknownGuild, ErrorCode.MissingPermissions)
  listForGuild(
    @CurrentCaller() caller: Caller,
    @Param('guild_id', new ParseSnowflakePipe(ErrorCode.UnknownGuild)) guildId: string,
  ): Promise<WebhookResponse[]> {
    return this.webhooks.listForGuild(caller.userId, guildId);
  }

  @Get('webhooks/:webhook_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'get_webhook',
    summary: 'Get a webhook',
    description: 'Needs MANAGE_WEBHOOKS in the webhook’s guild.',
  })
  @ApiOkResponse({ type: WebhookResponse, description: 'The webhook.' })
  @ApiErrors(ErrorCode.UnknownWebhook, ErrorCode.MissingPermissions)
  get(@CurrentCaller() caller: Caller, @WebhookId() webhookId: string): Promise<WebhookResponse> {
    return this.webhooks.get(caller.userId, webhookId);
  }

  /**
   * Renames, changes the avatar, moves the webhook to another channel of the same guild, or sets
   * or clears its inbound signing secret (`signing_secret`, audited).
   */
  @Patch('webhooks/:webhook_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'update_webhook',
    summary: 'Update a webhook',
    description:
      'Renames, changes the avatar, moves the webhook to another channel of the same guild, or ' +
      'sets or clears its inbound signing secret (`signing_secret`, audited). Needs ' +
      'MANAGE_WEBHOOKS.',
  })
  @ApiAuditReason()
  @ApiOkResponse({ type: WebhookResponse, description: 'The updated webhook.' })
  @ApiErrors(
    ErrorCode.UnknownWebhook,
    ErrorCode.MissingPermissions,
    ErrorCode.MaxWebhooksPerChannel,
    ['channel_id', FieldErrorCode.InvalidWebhookChannel],
    ['avatar', FieldErrorCode.ImageInvalid],
    ['avatar', FieldErrorCode.ImageTooLarge],
  )
  @ApiBody({ type: UpdateWebhookDto, examples: UPDATE_WEBHOOK_EXAMPLES })
  update(
    @CurrentCaller() caller: Caller,
    @WebhookId() webhookId: string,
    @Body() dto: UpdateWebhookDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<WebhookResponse> {
    return this.webhooks.update(caller.userId, webhookId, dto, audit);
  }

  @Delete('webhooks/:webhook_id')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'delete_webhook',
    summary: 'Delete a webhook',
    description: 'Needs MANAGE_WEBHOOKS; its token stops working at once.',
  })
  @ApiAuditReason()
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(ErrorCode.UnknownWebhook, ErrorCode.MissingPermissions)
  delete(
    @CurrentCaller() caller: Caller,
    @WebhookId() webhookId: string,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    return this.webhooks.delete(caller.userId, webhookId, audit);
  }

  /** The webhook, authenticated by its token. */
  @Get('webhooks/:webhook_id/:token')
  @WebhookTokenAuth()
  @ApiOperation({
    operationId: 'get_webhook_with_token',
    summary: 'Get a webhook with its token',
    description: 'No Authorization header: the token in the path is the credential.',
  })
  @ApiOkResponse({ type: WebhookTokenResponse, description: 'The webhook.' })
  @ApiErrors(ErrorCode.UnknownWebhook)
  getWithToken(
    @WebhookId() webhookId: string,
    @Param('token') token: string,
  ): Promise<WebhookTokenResponse> {
    return this.webhooks.getWithToken(webhookId, token);
  }

  @Patch('webhooks/:webhook_id/:token')
  @WebhookTokenAuth()
  @ApiOperation({
    operationId: 'update_webhook_with_token',
    summary: 'Update a webhook with its token',
    description:
      'Name and avatar only (moving it or its signing secret needs MANAGE_WEBHOOKS). No ' +
      'Authorization header: the token in the path is the credential.',
  })
  @ApiOkResponse({ type: WebhookTokenResponse, description: 'The updated webhook.' })
  @ApiErrors(
    ErrorCode.UnknownWebhook,
    ['avatar', FieldErrorCode.ImageInvalid],
    ['avatar', FieldErrorCode.ImageTooLarge],
  )
  @ApiBody({ type: UpdateWebhookTokenDto, examples: UPDATE_WEBHOOK_TOKEN_EXAMPLES })
  updateWithToken(
    @WebhookId() webhookId: string,
    @Param('token') token: string,
    @Body() dto: UpdateWebhookTokenDto,
  ): Promise<WebhookTokenResponse> {
    return this.webhooks.updateWithToken(webhookId, token, dto);
  }

  @Delete('webhooks/:webhook_id/:token')
  @HttpCode(204)
  @WebhookTokenAuth()
  @ApiOperation({
    operationId: 'delete_webhook_with_token',
    summary: 'Delete a webhook with its token',
    description: 'No Authorization header: the token in the path is the credential.',
  })
  @ApiAuditReason()
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(ErrorCode.UnknownWebhook)
  deleteWithToken(
    @WebhookId() webhookId: string,
    @Param('token') token: string,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    return this.webhooks.deleteWithToken(webhookId, token, audit);
  }
}
