import { Body, Controller, Patch } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { SessionCaller } from '../../common/auth/caller';

import { FieldErrorCode } from '../../common/errors/field-error-code';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { RateLimit } from '../../common/rate-limit/rate-limit.decorator';
import { UserPrivateResponse } from '../users/user.response';
import { RequestAudit, type AuditContext } from '../audit/audit-context';
import { AccountService } from './account.service';
import { REAUTH_ERRORS } from './mfa/reauth.errors';
import { UpdateAccountDto } from './dto/update-account.dto';
import { UPDATE_ACCOUNT_EXAMPLES } from './auth.examples';

@ApiTags('Users')
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
  @ApiOperation({
    operationId: 'update_current_user',
    summary: 'Update my account',
    description:
      'Username, display name, e-mail address or password. Changing `email` or the password ' +
      '(`new_password`) needs the current `password` (or a second factor when the account has ' +
      'MFA); a new e-mail address gets a verification mail and the old one a revert mail, and a ' +
      'new password ends the other sessions.',
  })
  @ApiOkResponse({ type: UserPrivateResponse, description: 'The updated account.' })
  @ApiErrors(
    ...REAUTH_ERRORS,
    ['email', FieldErrorCode.EmailBanned],
    ['email', FieldErrorCode.EmailAlreadyRegistered],
    ['username', FieldErrorCode.UsernameTooManyUsers],
  )
  @ApiBody({ type: UpdateAccountDto, examples: UPDATE_ACCOUNT_EXAMPLES })
  update(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: UpdateAccountDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<UserPrivateResponse> {
    return this.account.update(caller, dto, audit);
  }
}
