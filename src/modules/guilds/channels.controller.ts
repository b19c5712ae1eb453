import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { Caller } from '../../common/auth/caller';
import { ErrorCode } from '../../common/errors/error-code';
import { ApiStandardErrors } from '../../common/http/api-errors.decorator';
import { ErrorResponse } from '../../common/http/error.response';
import { ParseSnowflakePipe } from '../../common/snowflake/parse-snowflake.pipe';
import { ChannelsService } from './channels.service';
import { CreateMessageDto } from './dto/create-message.dto';
import { ListMessagesQueryDto } from './dto/list-messages.dto';
import { ChannelResponse, MessageResponse } from './guild.response';
import { MessagesService } from './messages.service';

const ChannelId = () => Param('channel_id', new ParseSnowflakePipe(ErrorCode.UnknownChannel));

@ApiTags('Channels')
@ApiStandardErrors()
@ApiNotFoundResponse({ type: ErrorResponse, description: 'Unknown channel (or not a member)' })
@Controller('channels')
export class ChannelsController {
  constructor(
    private readonly channels: ChannelsService,
    private readonly messages: MessagesService,
  ) {}

  /** A channel of a guild the caller is in. Needs VIEW_CHANNEL. */
  @Get(':channel_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({ operationId: 'get_channel' })
  @ApiOkResponse({ type: ChannelResponse })
  get(@CurrentCaller() caller: Caller, @ChannelId() channelId: string): Promise<ChannelResponse> {
    return this.channels.get(caller.userId, channelId);
  }

  /** Messages, newest first; `before`/`after` are id cursors, `limit` 1-100 (default 50). */
  @Get(':channel_id/messages')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({ operationId: 'list_channel_messages' })
  @ApiOkResponse({ type: [MessageResponse] })
  listMessages(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @Query() query: ListMessagesQueryDto,
  ): Promise<MessageResponse[]> {
    return this.messages.list(caller.userId, channelId, query);
  }

  /** Posts a message. Needs SEND_MESSAGES; content or embeds required. */
  @Post(':channel_id/messages')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({ operationId: 'create_message' })
  @ApiCreatedResponse({ type: MessageResponse })
  createMessage(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @Body() dto: CreateMessageDto,
  ): Promise<MessageResponse> {
    return this.messages.create(caller.userId, channelId, dto);
  }
}
