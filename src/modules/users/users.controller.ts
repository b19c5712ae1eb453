import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { Caller } from '../../common/auth/caller';
import { toUserPrivate } from './user.mapper';
import { UserPrivateResponse } from './user.response';
import { UsersService } from './users.service';

@ApiTags('Users')
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  /** The calling user's account. */
  @Get('@me')
  @Auth({ kind: 'user' })
  @ApiOperation({ operationId: 'get_current_user', summary: 'Get my account' })
  @ApiOkResponse({ type: UserPrivateResponse, description: 'The calling user’s account.' })
  async me(@CurrentCaller() caller: Caller): Promise<UserPrivateResponse> {
    return toUserPrivate(await this.users.getProfile(caller.userId));
  }
}
