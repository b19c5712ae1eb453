import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { Caller } from '../../common/auth/caller';
import { ErrorCode } from '../../common/errors/error-code';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { ParseSnowflakePipe } from '../../common/snowflake/parse-snowflake.pipe';
import { toUserPartial, toUserPrivate } from './user.mapper';
import { UserPartialResponse, UserPrivateResponse } from './user.response';
import { UsersService } from './users.service';

@ApiTags('Users')
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  /** The calling user's account; with a bot token, the bot user (Discord's login call). */
  @Get('@me')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'get_current_user',
    summary: 'Get my account',
    description:
      'The calling user’s account. With a bot token, the application’s bot user (`bot: true`, ' +
      '`email` null, `verified` true): bot libraries call this to log in.',
  })
  @ApiOkResponse({ type: UserPrivateResponse, description: 'The calling user’s account.' })
  async me(@CurrentCaller() caller: Caller): Promise<UserPrivateResponse> {
    const user = toUserPrivate(await this.users.getProfile(caller.userId));
    // Discord's bot users are verified (they have no e-mail to verify).
    if (caller.kind === 'bot') user.verified = true;
    return user;
  }

  /** Anyone's public profile (Discord's Get User: discord.py fetch_user, discord.js users.fetch). */
  @Get(':user_id')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'get_user',
    summary: 'Get a user',
    description: 'A user’s public profile: the partial user shown wherever they appear.',
  })
  @ApiOkResponse({ type: UserPartialResponse, description: 'The user.' })
  @ApiErrors(ErrorCode.UnknownUser)
  async get(
    @Param('user_id', new ParseSnowflakePipe(ErrorCode.UnknownUser)) userId: string,
  ): Promise<UserPartialResponse> {
    return toUserPartial(await this.users.getProfile(userId));
  }
}
