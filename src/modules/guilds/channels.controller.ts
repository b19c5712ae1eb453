import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { Caller } from '../../common/auth/caller';
import { ErrorCode } from '../../common/errors/error-code';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { RateLimit } from '../../common/rate-limit/rate-limit.decorator';
import { Uploads } from '../../common/http/body-reader';
import type { UploadedFiles } from '../../common/http/multipart';
import { AcceptsFiles } from '../../common/http/route-policy';
import type { ReceivedFile } from './attachments/attachment-store';
import { EditedMessageFileIntake, NewMessageFileIntake } from './attachments/message-file-intakes';
import { ChannelsService } from './channels.service';
import { COMPONENT_MODELS } from './dto/component.dto';
import { CreateMessageDto } from './dto/create-message.dto';
import { EditMessageDto } from './dto/edit-message.dto';
import { ListMessagesQueryDto } from './dto/list-messages.dto';
import { UpdateChannelDto } from './dto/update-channel.dto';
import { ChannelResponse, MessageResponse } from './guild.response';
import { MessagesService } from './messages.service';
import { readableBy } from './message-content';
import {
  CREATE_MESSAGE_EXAMPLES,
  EDIT_MESSAGE_EXAMPLES,
  UPDATE_CHANNEL_EXAMPLES,
} from './guilds.examples';
import { ChannelId, MessageId } from '../../common/snowflake/id-params';

@ApiTags('Channels')
@ApiExtraModels(...COMPONENT_MODELS)
@Controller('channels')
export class ChannelsController {
  constructor(
    private readonly channels: ChannelsService,
    private readonly messages: MessagesService,
  ) {}

  /** A channel of a guild the caller is in. Needs VIEW_CHANNEL. */
  @Get(':channel_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'get_channel',
    summary: 'Get a channel',
    description: 'A channel of a guild the caller is in. Needs VIEW_CHANNEL.',
  })
  @ApiOkResponse({ type: ChannelResponse, description: 'The channel.' })
  @ApiErrors(ErrorCode.UnknownChannel, ErrorCode.MissingPermissions)
  get(@CurrentCaller() caller: Caller, @ChannelId() channelId: string): Promise<ChannelResponse> {
    return this.channels.get(caller.userId, channelId);
  }

  /** Renames or moves a channel (Discord's Modify Channel). Needs MANAGE_CHANNELS. */
  @Patch(':channel_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'update_channel',
    summary: 'Update a channel',
    description:
      'Its `name` and `position`. Needs MANAGE_CHANNELS. Connected members receive CHANNEL_UPDATE.',
  })
  @ApiOkResponse({ type: ChannelResponse, description: 'The channel as updated.' })
  @ApiErrors(ErrorCode.UnknownChannel, ErrorCode.MissingPermissions)
  @ApiBody({ type: UpdateChannelDto, examples: UPDATE_CHANNEL_EXAMPLES })
  update(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @Body() dto: UpdateChannelDto,
  ): Promise<ChannelResponse> {
    return this.channels.update(caller.userId, channelId, dto);
  }

  /** Deletes a channel with its messages and webhooks. Needs MANAGE_CHANNELS. */
  @Delete(':channel_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'delete_channel',
    summary: 'Delete a channel',
    description:
      'Deletes the channel with its messages and webhooks and answers the channel as it was ' +
      '(Discord’s Delete Channel). Needs MANAGE_CHANNELS. Connected members receive ' +
      'CHANNEL_DELETE.',
  })
  @ApiOkResponse({ type: ChannelResponse, description: 'The deleted channel.' })
  @ApiErrors(ErrorCode.UnknownChannel, ErrorCode.MissingPermissions)
  remove(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
  ): Promise<ChannelResponse> {
    return this.channels.delete(caller.userId, channelId);
  }

  /** The caller is typing: TYPING_START to those who see the channel. */
  @Post(':channel_id/typing')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @RateLimit('channel:typing')
  @ApiOperation({
    operationId: 'trigger_typing',
    summary: 'Show that the caller is typing',
    description:
      'Needs VIEW_CHANNEL and SEND_MESSAGES. Connected clients that see the channel (with the ' +
      'GUILD_MESSAGE_TYPING intent) receive TYPING_START; nothing is stored.',
  })
  @ApiNoContentResponse({ description: 'Announced.' })
  @ApiErrors(ErrorCode.UnknownChannel, ErrorCode.MissingPermissions)
  async typing(@CurrentCaller() caller: Caller, @ChannelId() channelId: string): Promise<void> {
    await this.channels.typing(caller.userId, channelId);
  }

  /** Messages, newest first; `before`/`after` are id cursors, `limit` 1-100 (default 50). */
  @Get(':channel_id/messages')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'list_channel_messages',
    summary: 'List messages',
    description:
      'Newest first. `before` and `after` are message ID cursors (exclusive); `limit` is 1-100 ' +
      '(default 50). Needs VIEW_CHANNEL and READ_MESSAGE_HISTORY.',
  })
  @ApiOkResponse({ type: [MessageResponse], description: 'The messages, newest first.' })
  @ApiErrors(ErrorCode.UnknownChannel, ErrorCode.MissingPermissions)
  async listMessages(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @Query() query: ListMessagesQueryDto,
  ): Promise<MessageResponse[]> {
    return readableBy(caller, await this.messages.list(caller.userId, channelId, query));
  }

  /** Posts a message. Needs SEND_MESSAGES; content, embeds or (bots) components required. */
  @Post(':channel_id/messages')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'create_message',
    summary: 'Send a message',
    description:
      'Needs VIEW_CHANNEL and SEND_MESSAGES; `content`, at least one embed or (bots only) ' +
      '`components` is required. Components are Discord’s action rows of buttons and select ' +
      'menus; a user’s message with components is refused.',
  })
  @ApiCreatedResponse({ type: MessageResponse, description: 'The new message.' })
  @ApiErrors(ErrorCode.UnknownChannel, ErrorCode.MissingPermissions, ErrorCode.EmptyMessage)
  @ApiBody({ type: CreateMessageDto, examples: CREATE_MESSAGE_EXAMPLES })
  @AcceptsFiles(NewMessageFileIntake)
  createMessage(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @Body() dto: CreateMessageDto,
    @Uploads() uploads: UploadedFiles<ReceivedFile> | null,
  ): Promise<MessageResponse> {
    return this.messages.create(caller, channelId, dto, uploads);
  }

  /** One message. Needs VIEW_CHANNEL and READ_MESSAGE_HISTORY. */
  @Get(':channel_id/messages/:message_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'get_channel_message',
    summary: 'Get a message',
    description: 'Needs VIEW_CHANNEL and READ_MESSAGE_HISTORY.',
  })
  @ApiOkResponse({ type: MessageResponse, description: 'The message.' })
  @ApiErrors(ErrorCode.UnknownChannel, ErrorCode.UnknownMessage, ErrorCode.MissingPermissions)
  async getMessage(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @MessageId() messageId: string,
  ): Promise<MessageResponse> {
    const [message] = readableBy(caller, [
      await this.messages.get(caller.userId, channelId, messageId),
    ]);
    return message;
  }

  /** The author edits their message's content, embeds or (bots) components. */
  @Patch(':channel_id/messages/:message_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'edit_message',
    summary: 'Edit a message',
    description:
      'Only its author may edit a message (403 CANNOT_EDIT_MESSAGE_BY_OTHER_USER otherwise); ' +
      'fields left out stay as they are (`components: []` removes a bot’s components), and the ' +
      'result needs content, an embed or components. Sets ' +
      '`edited_timestamp`; connected clients receive MESSAGE_UPDATE.',
  })
  @ApiOkResponse({ type: MessageResponse, description: 'The edited message.' })
  @ApiErrors(
    ErrorCode.UnknownChannel,
    ErrorCode.UnknownMessage,
    ErrorCode.MissingPermissions,
    ErrorCode.CannotEditOthersMessage,
    ErrorCode.EmptyMessage,
  )
  @ApiBody({ type: EditMessageDto, examples: EDIT_MESSAGE_EXAMPLES })
  @AcceptsFiles(EditedMessageFileIntake)
  editMessage(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @MessageId() messageId: string,
    @Body() dto: EditMessageDto,
    @Uploads() uploads: UploadedFiles<ReceivedFile> | null,
  ): Promise<MessageResponse> {
    return this.messages.edit(caller, channelId, messageId, dto, uploads);
  }

  /** Deletes a message: its author, or a member with MANAGE_MESSAGES. */
  @Delete(':channel_id/messages/:message_id')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'delete_message',
    summary: 'Delete a message',
    description:
      'Its author may delete a message; anyone else needs MANAGE_MESSAGES. Connected clients ' +
      'receive MESSAGE_DELETE.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(ErrorCode.UnknownChannel, ErrorCode.UnknownMessage, ErrorCode.MissingPermissions)
  async deleteMessage(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @MessageId() messageId: string,
  ): Promise<void> {
    await this.messages.delete(caller.userId, channelId, messageId);
  }
}
