import {
  applyDecorators,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Post,
  Put,
  Query,
} from '@nestjs/common';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { Caller } from '../../common/auth/caller';
import { ErrorCode } from '../../common/errors/error-code';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { parseSnowflake } from '../../common/snowflake/snowflake';
import { BulkDeleteMessagesDto } from './dto/bulk-delete-messages.dto';
import { ListPinsQueryDto } from './dto/list-pins.dto';
import { MessagePinsResponse, MessageResponse } from './guild.response';
import { BULK_DELETE_EXAMPLES } from './guilds.examples';
import { readableBy } from './message-content';
import { MAX_PINS, MessageModerationService } from './message-moderation.service';
import { ChannelId, MessageId } from '../../common/snowflake/id-params';

const PIN_RULES =
  'Needs MANAGE_MESSAGES; a channel holds at most 50 pins. Connected clients receive ' +
  'MESSAGE_UPDATE and CHANNEL_PINS_UPDATE.';

/**
 * What a pin or unpin route is, on either of Discord's route sets: the rule and the answers
 * (`@HttpCode(204)` stays on the method, where the Swagger plugin reads it).
 */
function PinRoute(what: 'pin' | 'unpin', operationId: string, summary: string): MethodDecorator {
  const errors = [ErrorCode.UnknownChannel, ErrorCode.UnknownMessage, ErrorCode.MissingPermissions];
  return applyDecorators(
    Auth({ kind: ['user', 'bot'] }),
    ApiOperation({ operationId, summary, description: PIN_RULES }),
    ApiNoContentResponse({
      description: what === 'pin' ? 'Pinned (or already pinned).' : 'Unpinned (or was not pinned).',
    }),
    ApiErrors(...(what === 'pin' ? [...errors, ErrorCode.MaxPinsReached] : errors)),
  );
}

/**
 * Discord's pins — on both of its route sets: the older `/channels/{id}/pins` (discord.py 2.2)
 * and the newer `/channels/{id}/messages/pins` (discord.js 14.28) — and bulk delete. Registered
 * before ChannelsController: on Express, `GET messages/pins` must be matched before
 * `GET messages/:message_id`.
 */
@ApiTags('Channels')
@Controller('channels')
export class MessageModerationController {
  constructor(private readonly moderation: MessageModerationService) {}

  @Get(':channel_id/messages/pins')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'list_message_pins',
    summary: 'List pinned messages (paged)',
    description:
      'Newest pin first, `limit` 1-50 (default 50) pins made before `before` (ISO 8601). ' +
      'Needs VIEW_CHANNEL and READ_MESSAGE_HISTORY.',
  })
  @ApiOkResponse({ type: MessagePinsResponse, description: 'A page of pins.' })
  @ApiErrors(ErrorCode.UnknownChannel, ErrorCode.MissingPermissions)
  async listPinsPaged(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @Query() query: ListPinsQueryDto,
  ): Promise<MessagePinsResponse> {
    const page = await this.moderation.pins(
      caller.userId,
      channelId,
      query.before,
      query.limit ?? MAX_PINS,
    );
    const messages = readableBy(
      caller,
      page.items.map((item) => item.message),
    );
    return {
      items: page.items.map((item, i) => ({ ...item, message: messages[i] })),
      has_more: page.has_more,
    };
  }

  @Put(':channel_id/messages/pins/:message_id')
  @HttpCode(204)
  @PinRoute('pin', 'pin_message', 'Pin a message')
  async pin(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @MessageId() messageId: string,
  ): Promise<void> {
    await this.moderation.pin(caller.userId, channelId, messageId);
  }

  @Delete(':channel_id/messages/pins/:message_id')
  @HttpCode(204)
  @PinRoute('unpin', 'unpin_message', 'Unpin a message')
  async unpin(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @MessageId() messageId: string,
  ): Promise<void> {
    await this.moderation.unpin(caller.userId, channelId, messageId);
  }

  @Get(':channel_id/pins')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'list_pinned_messages',
    summary: 'List pinned messages (Discord’s older route)',
    description:
      'Every pinned message, newest pin first. Needs VIEW_CHANNEL and READ_MESSAGE_HISTORY.',
  })
  @ApiOkResponse({ type: [MessageResponse], description: 'The pinned messages.' })
  @ApiErrors(ErrorCode.UnknownChannel, ErrorCode.MissingPermissions)
  async listPins(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
  ): Promise<MessageResponse[]> {
    return readableBy(caller, await this.moderation.pinnedMessages(caller.userId, channelId));
  }

  @Put(':channel_id/pins/:message_id')
  @HttpCode(204)
  @PinRoute('pin', 'pin_message_legacy', 'Pin a message (Discord’s older route)')
  async pinLegacy(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @MessageId() messageId: string,
  ): Promise<void> {
    await this.moderation.pin(caller.userId, channelId, messageId);
  }

  @Delete(':channel_id/pins/:message_id')
  @HttpCode(204)
  @PinRoute('unpin', 'unpin_message_legacy', 'Unpin a message (Discord’s older route)')
  async unpinLegacy(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @MessageId() messageId: string,
  ): Promise<void> {
    await this.moderation.unpin(caller.userId, channelId, messageId);
  }

  @Post(':channel_id/messages/bulk-delete')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'bulk_delete_messages',
    summary: 'Delete many messages',
    description:
      '2-100 message ids of the channel, none older than 14 days (ids the channel does not hold ' +
      'are skipped). Needs MANAGE_MESSAGES. Connected clients receive one MESSAGE_DELETE_BULK.',
  })
  @ApiBody({ type: BulkDeleteMessagesDto, examples: BULK_DELETE_EXAMPLES })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(ErrorCode.UnknownChannel, ErrorCode.MissingPermissions, ErrorCode.BulkDeleteTooOld)
  async bulkDelete(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @Body() dto: BulkDeleteMessagesDto,
  ): Promise<void> {
    const ids = dto.messages.map((id) => parseSnowflake(id) as string);
    await this.moderation.bulkDelete(caller.userId, channelId, ids);
  }
}
