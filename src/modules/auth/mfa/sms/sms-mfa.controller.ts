import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Auth, CurrentCaller, Public } from '../../../../common/auth/auth.decorator';
import type { SessionCaller } from '../../../../common/auth/caller';
import { ErrorCode } from '../../../../common/errors/error-code';
import { FieldErrorCode } from '../../../../common/errors/field-error-code';
import { ApiErrors } from '../../../../common/openapi/api-errors.decorator';
import { RateLimit } from '../../../../common/rate-limit/rate-limit.decorator';
import { RequestAudit, type AuditContext } from '../../../audit/audit-context';
import { AuthTokenWithUserIdResponse } from '../../auth.response';
import { MfaCodeDto, MfaTicketDto } from '../dto/mfa-login.dto';
import { ReauthDto } from '../dto/reauth.dto';
import { MfaLoginService } from '../mfa-login.service';
import { REAUTH_ERRORS } from '../reauth.errors';
import { AddPhoneDto, VerifyPhoneDto } from './sms-mfa.dto';
import { SmsSentResponse } from './sms-mfa.response';
import { SmsMfaService } from './sms-mfa.service';
import {
  ADD_PHONE_EXAMPLES,
  MFA_SMS_LOGIN_EXAMPLES,
  MFA_TICKET_EXAMPLES,
  reauthExamples,
  VERIFY_PHONE_EXAMPLES,
} from '../../auth.examples';

/** The calling user's phone number and SMS MFA. */
@ApiTags('Users')
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
  @ApiOperation({
    operationId: 'add_phone',
    summary: 'Add a phone number',
    description:
      'Texts a 6-digit code (valid 5 minutes) to the number (E.164); the verify route makes it ' +
      'the account’s. Confirmed by `password` (or a second factor), or a proof on this session ' +
      'in the last 5 minutes. A banned number is refused.',
  })
  @ApiOkResponse({ type: SmsSentResponse, description: 'The code was sent.' })
  @ApiErrors(...REAUTH_ERRORS, ErrorCode.SmsDeliveryFailed, ['phone', FieldErrorCode.PhoneBanned])
  @ApiBody({ type: AddPhoneDto, examples: ADD_PHONE_EXAMPLES })
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
  @ApiOperation({
    operationId: 'verify_phone',
    summary: 'Verify the phone number',
    description:
      'Makes the number the account’s phone with the texted code (5 wrong codes spend it).',
  })
  @ApiOkResponse({ type: SmsSentResponse, description: 'The number is the account’s phone.' })
  @ApiErrors(ErrorCode.InvalidMfaCode, ['phone', FieldErrorCode.PhoneBanned])
  @ApiBody({ type: VerifyPhoneDto, examples: VERIFY_PHONE_EXAMPLES })
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
  @ApiOperation({
    operationId: 'remove_phone',
    summary: 'Remove the phone number',
    description:
      'Removes the account’s phone number, and SMS MFA with it. Always asks for a proof.',
  })
  @ApiNoContentResponse({ description: 'The phone number (and SMS MFA) are removed.' })
  @ApiErrors(...REAUTH_ERRORS, ErrorCode.PhoneRequired)
  @ApiBody({ type: ReauthDto, examples: reauthExamples({}, 'Remove the phone') })
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
  @ApiOperation({
    operationId: 'enable_sms_mfa',
    summary: 'Enable SMS MFA',
    description:
      'Turns on SMS as a login factor: needs a verified phone and TOTP. Confirmed by a proof, ' +
      'or a proof on this session in the last 5 minutes.',
  })
  @ApiNoContentResponse({ description: 'SMS MFA is on.' })
  @ApiErrors(...REAUTH_ERRORS, ErrorCode.PhoneRequired, ErrorCode.TotpNotEnabled)
  @ApiBody({ type: ReauthDto, examples: reauthExamples({}, 'Turn SMS on') })
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
  @ApiOperation({
    operationId: 'disable_sms_mfa',
    summary: 'Disable SMS MFA',
    description: 'Turns SMS MFA off (the phone number stays). Always asks for a proof.',
  })
  @ApiNoContentResponse({ description: 'SMS MFA is off.' })
  @ApiErrors(...REAUTH_ERRORS)
  @ApiBody({ type: ReauthDto, examples: reauthExamples({}, 'Turn SMS off') })
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
  @ApiOperation({
    operationId: 'send_login_mfa_sms',
    summary: 'Log in: text the SMS code',
    description:
      'Texts a 6-digit code (valid 5 minutes) for this MFA ticket to the account’s phone.',
  })
  @ApiOkResponse({ type: SmsSentResponse, description: 'The code was sent.' })
  @ApiErrors(
    ErrorCode.InvalidMfaTicket,
    ErrorCode.MfaMethodUnavailable,
    ErrorCode.PhoneRequired,
    ErrorCode.SmsDeliveryFailed,
    ['phone', FieldErrorCode.PhoneBanned],
  )
  @ApiBody({ type: MfaTicketDto, examples: MFA_TICKET_EXAMPLES })
  send(@Body() dto: MfaTicketDto): Promise<SmsSentResponse> {
    return this.sms.sendLoginCode(dto.ticket);
  }

  /** Finishes an MFA-required login with the texted code. 5 wrong codes spend the ticket. */
  @Post()
  @HttpCode(200)
  @Public()
  @RateLimit('auth:login:mfa')
  @ApiOperation({
    operationId: 'login_mfa_sms',
    summary: 'Log in: SMS step',
    description:
      'Finishes an MFA-required login with the texted code. 5 wrong codes spend the ticket.',
  })
  @ApiOkResponse({ type: AuthTokenWithUserIdResponse, description: 'Logged in: the session.' })
  @ApiErrors(ErrorCode.InvalidMfaTicket, ErrorCode.InvalidMfaCode, ErrorCode.MfaMethodUnavailable)
  @ApiBody({ type: MfaCodeDto, examples: MFA_SMS_LOGIN_EXAMPLES })
  login(@Body() dto: MfaCodeDto): Promise<AuthTokenWithUserIdResponse> {
    return this.mfaLogin.redeem(dto.ticket, 'sms', dto.code);
  }
}
