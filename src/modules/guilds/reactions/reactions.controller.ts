import { Controller, Delete, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentCaller } from '../../../common/auth/auth.decorator';
import type { Caller } from '../../../common/auth/caller';
import { ErrorCode } from '../../../common/errors/error-code';
import { ApiErrors } from '../../../common/openapi/api-errors.decorator';
import { ParseSnowflakePipe } from '../../../common/snowflake/parse-snowflake.pipe';
import { UserPartialResponse } from '../../users/user.response';
import { ListReactionsQueryDto } from './dto/list-reactions.dto';
import { ReactionsService, type ReactionTarget } from './reactions.service';
import { ChannelId, MessageId } from '../../../common/snowflake/id-params';

/** The emoji as the router decoded it (clients send it percent-encoded: `%F0%9F%91%8D`). */
const Emoji = () => Param('emoji');

const EMOJI_NOTE =
  ' `emoji` is a unicode emoji, percent-encoded; anything else (custom emoji `name:id` ' +
  'included: Parley has none) is 400 UNKNOWN_EMOJI.';
const NOT_FOUND = [ErrorCode.UnknownChannel, ErrorCode.UnknownMessage] as const;

/** Discord's reaction routes (unicode emoji only; no super reactions). */
@ApiTags('Channels')
@Controller('channels/:channel_id/messages/:message_id/reactions')
export class ReactionsController {
  constructor(private readonly reactions: ReactionsService) {}

  // Before `:emoji/:user_id`: Express matches routes in the order they are declared.
  @Put(':emoji/@me')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'create_reaction',
    summary: 'Add a reaction',
    description:
      'The caller reacts; reacting twice changes nothing. Needs VIEW_CHANNEL and ' +
      'READ_MESSAGE_HISTORY, and ADD_REACTIONS when nobody has reacted with the emoji yet; a ' +
      'message has at most 20 different emoji (400 MAX_REACTIONS). Connected members receive ' +
      'MESSAGE_REACTION_ADD.' +
      EMOJI_NOTE,
  })
  @ApiNoContentResponse({ description: 'Reacted.' })
  @ApiErrors(
    ...NOT_FOUND,
    ErrorCode.MissingPermissions,
    ErrorCode.UnknownEmoji,
    ErrorCode.MaxReactions,
  )
  async add(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @MessageId() messageId: string,
    @Emoji() emoji: string,
  ): Promise<void> {
    await this.reactions.add(target(caller, channelId, messageId), emoji);
  }

  @Delete(':emoji/@me')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'delete_own_reaction',
    summary: 'Remove your reaction',
    description:
      'Removes the caller’s reaction (none: nothing changes). Needs VIEW_CHANNEL. Connected ' +
      'members receive MESSAGE_REACTION_REMOVE.' +
      EMOJI_NOTE,
  })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiErrors(...NOT_FOUND, ErrorCode.MissingPermissions, ErrorCode.UnknownEmoji)
  async removeOwn(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @MessageId() messageId: string,
    @Emoji() emoji: string,
  ): Promise<void> {
    await this.reactions.remove(target(caller, channelId, messageId), emoji, caller.userId);
  }

  @Delete(':emoji/:user_id')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'delete_user_reaction',
    summary: 'Remove a user’s reaction',
    description:
      'Removes one user’s reaction: MANAGE_MESSAGES, unless it is the caller’s own. Connected ' +
      'members receive MESSAGE_REACTION_REMOVE.' +
      EMOJI_NOTE,
  })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiErrors(
    ...NOT_FOUND,
    ErrorCode.UnknownUser,
    ErrorCode.MissingPermissions,
    ErrorCode.UnknownEmoji,
  )
  async removeUser(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @MessageId() messageId: string,
    @Emoji() emoji: string,
    @Param('user_id', new ParseSnowflakePipe(ErrorCode.UnknownUser)) userId: string,
  ): Promise<void> {
    await this.reactions.remove(target(caller, channelId, messageId), emoji, userId);
  }

  @Get(':emoji')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'list_reactions',
    summary: 'List who reacted',
    description:
      'The users who reacted with the emoji, in user id order: `limit` (1-100, default 25) ' +
      'after the user id `after`. Needs VIEW_CHANNEL and READ_MESSAGE_HISTORY.' +
      EMOJI_NOTE,
  })
  @ApiOkResponse({ type: [UserPartialResponse], description: 'The users.' })
  @ApiErrors(...NOT_FOUND, ErrorCode.MissingPermissions, ErrorCode.UnknownEmoji)
  list(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @MessageId() messageId: string,
    @Emoji() emoji: string,
    @Query() query: ListReactionsQueryDto,
  ): Promise<UserPartialResponse[]> {
    return this.reactions.reactors(target(caller, channelId, messageId), emoji, query);
  }

  @Delete(':emoji')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'delete_emoji_reactions',
    summary: 'Remove the reactions with one emoji',
    description:
      'Needs MANAGE_MESSAGES. Connected members receive MESSAGE_REACTION_REMOVE_EMOJI.' +
      EMOJI_NOTE,
  })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiErrors(...NOT_FOUND, ErrorCode.MissingPermissions, ErrorCode.UnknownEmoji)
  async removeEmoji(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @MessageId() messageId: string,
    @Emoji() emoji: string,
  ): Promise<void> {
    await this.reactions.removeEmoji(target(caller, channelId, messageId), emoji);
  }

  @Delete()
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'delete_all_reactions',
    summary: 'Remove every reaction',
    description:
      'Every reaction of the message. Needs MANAGE_MESSAGES. Connected members receive ' +
      'MESSAGE_REACTION_REMOVE_ALL.',
  })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiErrors(...NOT_FOUND, ErrorCode.MissingPermissions)
  async removeAll(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @MessageId() messageId: string,
  ): Promise<void> {
    await this.reactions.removeAll(target(caller, channelId, messageId));
  }
}

function target(caller: Caller, channelId: string, messageId: string): ReactionTarget {
  return { userId: caller.userId, channelId, messageId };
}
