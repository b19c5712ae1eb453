import { Param } from '@nestjs/common';
import { ErrorCode } from '../errors/error-code';
import { ParseSnowflakePipe } from './parse-snowflake.pipe';

/**
 * The path parameters of the guild routes, each validated as a snowflake: one that cannot be an
 * id is the resource's 404 (it cannot exist), in the same words as an unknown one.
 */
export const GuildId = () => Param('guild_id', new ParseSnowflakePipe(ErrorCode.UnknownGuild));
export const ChannelId = () =>
  Param('channel_id', new ParseSnowflakePipe(ErrorCode.UnknownChannel));
export const MessageId = () =>
  Param('message_id', new ParseSnowflakePipe(ErrorCode.UnknownMessage));
export const RoleId = () => Param('role_id', new ParseSnowflakePipe(ErrorCode.UnknownRole));
export const WebhookId = () =>
  Param('webhook_id', new ParseSnowflakePipe(ErrorCode.UnknownWebhook));
