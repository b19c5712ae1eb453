import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Auth, CurrentCaller, Public } from '../../common/auth/auth.decorator';
import type { Caller } from '../../common/auth/caller';
import { ErrorCode } from '../../common/errors/error-code';
import { ErrorResponse } from '../../common/http/error.response';
import { ParseSnowflakePipe } from '../../common/snowflake/parse-snowflake.pipe';
import { RequestAudit, type AuditContext } from '../audit/audit-context';
import { ApiAuditReason } from '../audit/audit-reason.decorator';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { UpdateWebhookDto, UpdateWebhookTokenDto } from './dto/update-webhook.dto';
import { WebhookResponse, WebhookTokenResponse } from './webhook.response';
import { WebhooksService } from './webhooks.service';
import {
  CREATE_WEBHOOK_EXAMPLES,
  UPDATE_WEBHOOK_EXAMPLES,
  UPDATE_WEBHOOK_TOKEN_EXAMPLES,
} from './webhooks.examples';

const WebhookId = () => Param('webhook_id', new ParseSnowflakePipe(ErrorCode.UnknownWebhook));
const ChannelId = () => Param('channel_id', new ParseSnowflakePipe(ErrorCode.UnknownChannel));

/** Webhook management: MANAGE_WEBHOOKS in the webhook's guild, or the webhook's token. */
@ApiTags('Webhooks')
@ApiNotFoundResponse({ type: ErrorResponse, description: 'Unknown webhook, channel or guild' })
@Controller()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  /** Creates an incoming webhook (at most 15 per channel). */
  @Post('channels/:channel_id/webhooks')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({ operationId: 'create_webhook' })
  @ApiAuditReason()
  @ApiCreatedResponse({ type: WebhookResponse })
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
  @ApiOperation({ operationId: 'list_channel_webhooks' })
  @ApiOkResponse({ type: [WebhookResponse] })
  listForChannel(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
  ): Promise<WebhookResponse[]> {
    return this.webhooks.listForChannel(caller.userId, channelId);
  }

  /** Webhooks of a guild. */
  @Get('guilds/:guild_id/webhooks')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({ operationId: 'list_guild_webhooks' })
  @ApiOkResponse({ type: [WebhookResponse] })
  listForGuild(
    @CurrentCaller() caller: Caller,
    @Param('guild_id', new ParseSnowflakePipe(ErrorCode.UnknownGuild)) guildId: string,
  ): Promise<WebhookResponse[]> {
    return this.webhooks.listForGuild(caller.userId, guildId);
  }

  @Get('webhooks/:webhook_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({ operationId: 'get_webhook' })
  @ApiOkResponse({ type: WebhookResponse })
  get(@CurrentCaller() caller: Caller, @WebhookId() webhookId: string): Promise<WebhookResponse> {
    return this.webhooks.get(caller.userId, webhookId);
  }

  /**
   * Renames, changes the avatar, moves the webhook to another channel of the same guild, or sets
   * or clears its inbound signing secret (`signing_secret`, audited).
   */
  @Patch('webhooks/:webhook_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({ operationId: 'update_webhook' })
  @ApiAuditReason()
  @ApiOkResponse({ type: WebhookResponse })
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
  @ApiOperation({ operationId: 'delete_webhook' })
  @ApiAuditReason()
  @ApiNoContentResponse({ description: 'Deleted' })
  delete(
    @CurrentCaller() caller: Caller,
    @WebhookId() webhookId: string,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    return this.webhooks.delete(caller.userId, webhookId, audit);
  }

  /** The webhook, authenticated by its token. */
  @Get('webhooks/:webhook_id/:token')
  @Public()
  @ApiOperation({ operationId: 'get_webhook_with_token' })
  @ApiOkResponse({ type: WebhookTokenResponse })
  getWithToken(
    @WebhookId() webhookId: string,
    @Param('token') token: string,
  ): Promise<WebhookTokenResponse> {
    return this.webhooks.getWithToken(webhookId, token);
  }

  @Patch('webhooks/:webhook_id/:token')
  @Public()
  @ApiOperation({ operationId: 'update_webhook_with_token' })
  @ApiOkResponse({ type: WebhookTokenResponse })
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
  @Public()
  @ApiOperation({ operationId: 'delete_webhook_with_token' })
  @ApiAuditReason()
  @ApiNoContentResponse({ description: 'Deleted' })
  deleteWithToken(
    @WebhookId() webhookId: string,
    @Param('token') token: string,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    return this.webhooks.deleteWithToken(webhookId, token, audit);
  }
}
