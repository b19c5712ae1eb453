import { Body, Controller, Delete, Get, HttpCode, Param, Patch } from '@nestjs/common';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { ErrorCode } from '../../common/errors/error-code';
import { Uploads } from '../../common/http/body-reader';
import type { UploadedFiles } from '../../common/http/multipart';
import { AcceptsFiles } from '../../common/http/route-policy';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import type { ReceivedFile } from '../guilds/attachments/attachment-store';
import { MessageResponse } from '../guilds/guild.response';
import { EDIT_EXAMPLES } from '../interactions/interactions.examples';
import { EditWebhookMessageDto } from './dto/edit-webhook-message.dto';
import { WebhookMessageFileIntake } from './webhook-message-file-intake';
import { WebhookMessagesService, type RouteWebhook } from './webhook-messages.service';
import { CurrentWebhook, WebhookTokenAuth } from './webhook-token-auth.decorator';
import { EDIT_WEBHOOK_MESSAGE_EXAMPLES } from './webhooks.examples';

const CREDENTIAL =
  'No Authorization header: the token in the path is the credential. A webhook’s token reaches ' +
  'the messages it posted in its channel; an interaction’s token (it begins with ' +
  '`aW50ZXJhY3Rpb246`, for 15 minutes) reaches its answer (`@original`) and follow-ups.';

/**
 * A webhook's messages after they were posted (Discord's routes, for webhooks and interactions
 * alike: one path, told apart by the token — WebhookCredentials hands an interaction token to
 * the interactions module). The token is checked before the body is read (`@WebhookTokenAuth`).
 */
@ApiTags('Webhooks')
@ApiParam({
  name: 'webhook_id',
  type: String,
  description: 'The webhook, or the interaction’s application',
})
@ApiParam({
  name: 'token',
  type: String,
  description: 'The webhook’s token, or an interaction’s `token` (the credential of these routes)',
})
@ApiParam({
  name: 'message_id',
  type: String,
  description:
    'A message the webhook posted, or for an interaction `@original` (its answer) or the id ' +
    'of one of its messages',
})
@WebhookTokenAuth()
@ApiErrors(ErrorCode.UnknownMessage)
@Controller('webhooks/:webhook_id/:token/messages/:message_id')
export class WebhookMessagesController {
  constructor(private readonly messages: WebhookMessagesService) {}

  @Get()
  @ApiOperation({
    operationId: 'get_webhook_message',
    summary: 'Get a webhook’s message',
    description: `A message the webhook posted, or an interaction’s (ephemeral ones included). ${CREDENTIAL}`,
  })
  @ApiOkResponse({ type: MessageResponse, description: 'The message.' })
  get(
    @CurrentWebhook() webhook: RouteWebhook,
    @Param('message_id') ref: string,
  ): Promise<MessageResponse> {
    return this.messages.get(webhook, ref);
  }

  @Patch()
  @ApiOperation({
    operationId: 'edit_webhook_message',
    summary: 'Edit a webhook’s message',
    description:
      'Content, embeds, `flags` (SUPPRESS_EMBEDS) and attachments — `attachments` lists those ' +
      'kept (one left out is deleted) and names the files of a multipart body (`files[n]`, the ' +
      'JSON in `payload_json`); left out, every attachment stays. A webhook’s `components` are ' +
      'ignored (as on Discord for a webhook no application owns); an interaction’s message ' +
      'takes them. Editing a deferred answer (`@original` after callback 5) fills it in. ' +
      `Connected clients receive MESSAGE_UPDATE. ${CREDENTIAL}`,
  })
  @ApiBody({
    type: EditWebhookMessageDto,
    examples: { ...EDIT_WEBHOOK_MESSAGE_EXAMPLES, interaction: EDIT_EXAMPLES.content },
  })
  @ApiOkResponse({ type: MessageResponse, description: 'The edited message.' })
  @ApiErrors(ErrorCode.EmptyMessage)
  @AcceptsFiles(WebhookMessageFileIntake)
  edit(
    @CurrentWebhook() webhook: RouteWebhook,
    @Param('message_id') ref: string,
    @Body() dto: EditWebhookMessageDto,
    @Uploads() uploads: UploadedFiles<ReceivedFile> | null,
  ): Promise<MessageResponse> {
    return this.messages.edit(webhook, ref, dto, uploads);
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'delete_webhook_message',
    summary: 'Delete a webhook’s message',
    description: `Its attachments go with it. Connected clients receive MESSAGE_DELETE. ${CREDENTIAL}`,
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  delete(@CurrentWebhook() webhook: RouteWebhook, @Param('message_id') ref: string): Promise<void> {
    return this.messages.delete(webhook, ref);
  }
}
