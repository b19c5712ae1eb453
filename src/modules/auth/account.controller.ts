import { Body, Controller, Patch } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { SessionCaller } from '../../common/auth/caller';
import { ApiStandardErrors } from '../../common/http/api-errors.decorator';
import { RateLimit } from '../../common/rate-limit/rate-limit.decorator';
import { UserPrivateResponse } from '../users/user.response';
import { RequestAudit, type AuditContext } from '../audit/audit-context';
import { AccountService } from './account.service';
import { UpdateAccountDto } from './dto/update-account.dto';

@ApiTags('Users')
@ApiStandardErrors()
@Controller('users')
export class AccountController {
  constructor(private readonly account: AccountService) {}

  /**
   * Updates the calling user's account. Changing `email` or the password (`new_password`) needs
   * the current `password`; a new e-mail gets a verification mail and the old one a revert mail.
   */
  @Patch('@me')
  @Auth({ kind: 'user' })
  @RateLimit('auth:login')
  @ApiOperation({ operationId: 'update_current_user' })
  @ApiOkResponse({ type: UserPrivateResponse })
  update(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: UpdateAccountDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<UserPrivateResponse> {
    return this.account.update(caller, dto, audit);
  }
}
