import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentCaller, Public } from '../../../../common/auth/auth.decorator';
import type { SessionCaller } from '../../../../common/auth/caller';
import { ApiStandardErrors } from '../../../../common/http/api-errors.decorator';
import { RateLimit } from '../../../../common/rate-limit/rate-limit.decorator';
import { RequestAudit, type AuditContext } from '../../../audit/audit-context';
import { AuthTokenWithUserIdResponse } from '../../auth.response';
import { MfaCodeDto, MfaTicketDto } from '../dto/mfa-login.dto';
import { ReauthDto } from '../dto/reauth.dto';
import { MfaLoginService } from '../mfa-login.service';
import { AddPhoneDto, SmsSentResponse, VerifyPhoneDto } from './dto';
import { SmsMfaService } from './sms-mfa.service';

/** The calling user's phone number and SMS MFA. */
@ApiTags('Users')
@ApiStandardErrors()
@Controller('users/@me/mfa')
export class SmsEnrolmentController {
  constructor(private readonly sms: SmsMfaService) {}

  /**
   * Texts a 6-digit code (valid 5 minutes) to a phone number to verify; the number becomes the
   * account's with the verify route. Confirmed by `password` (or a second factor), or a proof on
   * this session in the last 5 minutes. A banned number is refused.
   */
  @Post('phone')
  @HttpCode(200)
  @Auth({ kind: 'user' })
  @RateLimit('auth:login:mfa')
  @ApiOperation({ operationId: 'add_phone' })
  @ApiOkResponse({ type: SmsSentResponse })
  addPhone(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: AddPhoneDto,
  ): Promise<SmsSentResponse> {
    return this.sms.addPhone(caller, dto, dto.phone);
  }

  /** Makes the number the account's phone with the texted code (5 wrong codes spend it). */
  @Post('phone/verify')
  @HttpCode(200)
  @Auth({ kind: 'user' })
  @RateLimit('auth:login:mfa')
  @ApiOperation({ operationId: 'verify_phone' })
  @ApiOkResponse({ type: SmsSentResponse })
  verifyPhone(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: VerifyPhoneDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<SmsSentResponse> {
    return this.sms.verifyPhone(caller, dto.code, audit);
  }

  /** Removes the account's phone number, and SMS MFA with it. Always asks for a proof. */
  @Post('phone/remove')
  @HttpCode(204)
  @Auth({ kind: 'user' })
  @RateLimit('auth:login')
  @ApiOperation({ operationId: 'remove_phone' })
  @ApiNoContentResponse()
  removePhone(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: ReauthDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    return this.sms.removePhone(caller, dto, audit);
  }

  /** Turns on SMS as a login factor: needs a verified phone and TOTP (400 otherwise). */
  @Post('sms/enable')
  @HttpCode(204)
  @Auth({ kind: 'user' })
  @RateLimit('auth:login')
  @ApiOperation({ operationId: 'enable_sms_mfa' })
  @ApiNoContentResponse()
  enable(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: ReauthDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    return this.sms.enable(caller, dto, audit);
  }

  /** Turns SMS MFA off (the phone stays). Always asks for a proof. */
  @Post('sms/disable')
  @HttpCode(204)
  @Auth({ kind: 'user' })
  @RateLimit('auth:login')
  @ApiOperation({ operationId: 'disable_sms_mfa' })
  @ApiNoContentResponse()
  disable(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: ReauthDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    return this.sms.disable(caller, dto, audit);
  }
}

/** The SMS step of an MFA-required login. */
@ApiTags('Auth')
@ApiStandardErrors()
@Controller('auth/login/mfa/sms')
export class SmsLoginController {
  constructor(
    private readonly sms: SmsMfaService,
    private readonly mfaLogin: MfaLoginService,
  ) {}

  /** Texts a 6-digit code (valid 5 minutes) for this ticket to the account's phone. */
  @Post('send')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:login:mfa')
  @ApiOperation({ operationId: 'send_login_mfa_sms' })
  @ApiOkResponse({ type: SmsSentResponse })
  send(@Body() dto: MfaTicketDto): Promise<SmsSentResponse> {
    return this.sms.sendLoginCode(dto.ticket);
  }

  /** Finishes an MFA-required login with the texted code. 5 wrong codes spend the ticket. */
  @Post()
  @HttpCode(200)
  @Public()
  @RateLimit('auth:login:mfa')
  @ApiOperation({ operationId: 'login_mfa_sms' })
  @ApiOkResponse({ type: AuthTokenWithUserIdResponse })
  login(@Body() dto: MfaCodeDto): Promise<AuthTokenWithUserIdResponse> {
    return this.mfaLogin.redeem(dto.ticket, 'sms', dto.code);
  }
}
