import { Body, Controller, Delete, Get, HttpCode, Param, Patch } from '@nestjs/common';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentRouteCredential, PathCredential } from '../../common/auth/route-credential';
import { ErrorCode } from '../../common/errors/error-code';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { MessageResponse } from '../guilds/guild.response';
import { InteractionMessageDto } from './dto/interaction-callback.dto';
import type { InteractionEntity } from './interaction.entity';
import { InteractionFollowups } from './interaction-followups';
import { EDIT_EXAMPLES } from './interactions.examples';

const MESSAGE_PARAM = {
  name: 'message_id',
  type: String,
  description: '`@original` (the answer) or the id of one of the interaction’s messages',
};

/**
 * An interaction's messages through its webhook (Discord's routes; the follow-up POST is the
 * webhook execute route, which recognises an interaction token). No Authorization header: the
 * token is the credential, for 15 minutes.
 */
@ApiTags('Interactions')
@ApiParam({ name: 'application_id', type: String, description: 'The interaction’s application' })
@ApiParam({
  name: 'interaction_token',
  type: String,
  description: 'The interaction’s `token` (the credential of these routes, for 15 minutes)',
})
@ApiParam(MESSAGE_PARAM)
@PathCredential('interaction', 'interaction_token')
@ApiErrors(ErrorCode.UnknownInteraction, ErrorCode.UnknownMessage)
@Controller('webhooks/:application_id/:interaction_token/messages/:message_id')
export class InteractionWebhooksController {
  constructor(private readonly followups: InteractionFollowups) {}

  @Get()
  @ApiOperation({
    operationId: 'get_interaction_message',
    summary: 'Get an interaction’s message',
    description: 'The answer (`@original`) or a follow-up, ephemeral ones included.',
  })
  @ApiOkResponse({ type: MessageResponse, description: 'The message.' })
  get(
    @CurrentRouteCredential() interaction: InteractionEntity,
    @Param('message_id') ref: string,
  ): Promise<MessageResponse> {
    return this.followups.get(interaction, ref);
  }

  @Patch()
  @ApiOperation({
    operationId: 'edit_interaction_message',
    summary: 'Edit an interaction’s message',
    description:
      'Content, embeds, components. Editing a deferred answer (`@original` after callback 5) ' +
      'fills it in.',
  })
  @ApiBody({ type: InteractionMessageDto, examples: EDIT_EXAMPLES })
  @ApiOkResponse({ type: MessageResponse, description: 'The edited message.' })
  @ApiErrors(ErrorCode.EmptyMessage)
  edit(
    @CurrentRouteCredential() interaction: InteractionEntity,
    @Param('message_id') ref: string,
    @Body() body: InteractionMessageDto,
  ): Promise<MessageResponse> {
    return this.followups.edit(interaction, ref, body);
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'delete_interaction_message',
    summary: 'Delete an interaction’s message',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  delete(
    @CurrentRouteCredential() interaction: InteractionEntity,
    @Param('message_id') ref: string,
  ): Promise<void> {
    return this.followups.delete(interaction, ref);
  }
}
