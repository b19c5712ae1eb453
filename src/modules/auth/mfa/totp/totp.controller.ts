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
import { ApiErrors } from '../../../../common/openapi/api-errors.decorator';
import { RateLimit } from '../../../../common/rate-limit/rate-limit.decorator';
import { RequestAudit, type AuditContext } from '../../../audit/audit-context';
import { AuthTokenWithUserIdResponse } from '../../auth.response';
import { MfaCodeDto } from '../dto/mfa-login.dto';
import { ReauthDto } from '../dto/reauth.dto';
import { MfaLoginService } from '../mfa-login.service';
import { REAUTH_ERRORS } from '../reauth.errors';
import { TotpEnableDto } from './totp.dto';
import { MfaBackupCodesResponse, TotpSetupResponse } from './totp.response';
import { TotpService } from './totp.service';
import { MFA_TOTP_LOGIN_EXAMPLES, reauthExamples, TOTP_ENABLE_EXAMPLES } from '../../auth.examples';

/** TOTP enrolment and backup codes of the calling user. */
@ApiTags('Users')
@Controller('users/@me/mfa')
export class TotpEnrolmentController {
  constructor(private readonly totp: TotpService) {}

  /**
   * Starts a TOTP set-up: a new seed and its `otpauth://` URI, pending until the enable route
   * gets a first code. Confirmed by `password` (or a second factor), or a proof on this session in
   * the last 5 minutes.
   */
  @Post('totp/setup')
  @HttpCode(200)
  @Auth({ kind: 'user' })
  @RateLimit('auth:login')
  @ApiOperation({
    operationId: 'setup_totp',
    summary: 'Start a TOTP set-up',
    description:
      'A new seed and its `otpauth://` URI (for the authenticator app), pending until the ' +
      'enable route gets a first code. Confirmed by `password` (or a second factor), or a proof ' +
      'on this session in the last 5 minutes.',
  })
  @ApiOkResponse({ type: TotpSetupResponse, description: 'The pending seed and its URI.' })
  @ApiErrors(...REAUTH_ERRORS, ErrorCode.TotpAlreadyEnabled)
  @ApiBody({ type: ReauthDto, examples: reauthExamples({}, 'Start') })
  setup(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: ReauthDto,
  ): Promise<TotpSetupResponse> {
    return this.totp.setup(caller, dto);
  }

  /** Confirms the pending set-up with the app's current code: MFA is on; 10 backup codes, shown once. */
  @Post('totp/enable')
  @HttpCode(200)
  @Auth({ kind: 'user' })
  @RateLimit('auth:login:mfa')
  @ApiOperation({
    operationId: 'enable_totp',
    summary: 'Enable TOTP',
    description:
      'Confirms the pending set-up with the app’s current code: MFA is on, and the answer holds ' +
      '10 backup codes, shown only once.',
  })
  @ApiOkResponse({ type: MfaBackupCodesResponse, description: 'TOTP is on; the backup codes.' })
  @ApiErrors(ErrorCode.TotpNotEnabled, ErrorCode.TotpAlreadyEnabled, ErrorCode.InvalidMfaCode)
  @ApiBody({ type: TotpEnableDto, examples: TOTP_ENABLE_EXAMPLES })
  enable(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: TotpEnableDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<MfaBackupCodesResponse> {
    return this.totp.enable(caller, dto.code, audit);
  }

  /**
   * Turns TOTP off, with SMS (which needs it) and the backup codes. Always asks for a proof:
   * `password`, or `mfa_method` + `mfa_code` (e.g. a current TOTP code).
   */
  @Post('totp/disable')
  @HttpCode(204)
  @Auth({ kind: 'user' })
  @RateLimit('auth:login')
  @ApiOperation({
    operationId: 'disable_totp',
    summary: 'Disable TOTP',
    description:
      'Turns TOTP off, with SMS (which needs it) and the backup codes. Always asks for a proof: ' +
      '`password`, or `mfa_method` + `mfa_code` (e.g. a current TOTP code).',
  })
  @ApiNoContentResponse({ description: 'TOTP, SMS MFA and the backup codes are off.' })
  @ApiErrors(...REAUTH_ERRORS, ErrorCode.TotpNotEnabled)
  @ApiBody({ type: ReauthDto, examples: reauthExamples({}, 'Turn TOTP off') })
  disable(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: ReauthDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    return this.totp.disable(caller, dto, audit);
  }

  /**
   * 10 new backup codes `xxxx-xxxx` (each works once, in place of a TOTP code); the old ones stop
   * working. Shown only in this answer: they are stored hashed.
   */
  @Post('backup-codes/regenerate')
  @HttpCode(200)
  @Auth({ kind: 'user' })
  @RateLimit('auth:login')
  @ApiOperation({
    operationId: 'regenerate_backup_codes',
    summary: 'Regenerate the backup codes',
    description:
      '10 new backup codes `xxxx-xxxx` (each works once, in place of a TOTP code); the old ones ' +
      'stop working. Shown only in this answer: they are stored hashed. Needs a proof, as the ' +
      'set-up does.',
  })
  @ApiOkResponse({ type: MfaBackupCodesResponse, description: 'The new backup codes.' })
  @ApiErrors(...REAUTH_ERRORS, ErrorCode.TotpNotEnabled)
  @ApiBody({ type: ReauthDto, examples: reauthExamples({}, 'Regenerate') })
  regenerate(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: ReauthDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<MfaBackupCodesResponse> {
    return this.totp.regenerateBackupCodes(caller, dto, audit);
  }
}

/** The TOTP step of an MFA-required login. */
@ApiTags('Auth')
@Controller('auth/login/mfa')
export class TotpLoginController {
  constructor(private readonly mfaLogin: MfaLoginService) {}

  /**
   * Finishes an MFA-required login with a TOTP code (the current step ±1, each code once) or an
   * unused backup code. 5 wrong codes spend the ticket.
   */
  @Post('totp')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:login:mfa')
  @ApiOperation({
    operationId: 'login_mfa_totp',
    summary: 'Log in: TOTP step',
    description:
      'Finishes an MFA-required login (the `ticket` from the login answer) with a TOTP code ' +
      '(the current 30-second step ±1, each code once) or an unused backup code. 5 wrong codes ' +
      'spend the ticket.',
  })
  @ApiOkResponse({ type: AuthTokenWithUserIdResponse, description: 'Logged in: the session.' })
  @ApiErrors(ErrorCode.InvalidMfaTicket, ErrorCode.InvalidMfaCode, ErrorCode.MfaMethodUnavailable)
  @ApiBody({ type: MfaCodeDto, examples: MFA_TOTP_LOGIN_EXAMPLES })
  login(@Body() dto: MfaCodeDto): Promise<AuthTokenWithUserIdResponse> {
    return this.mfaLogin.redeem(dto.ticket, 'totp', dto.code);
  }
}
