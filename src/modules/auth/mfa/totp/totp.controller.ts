import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentCaller, Public } from '../../../../common/auth/auth.decorator';
import type { SessionCaller } from '../../../../common/auth/caller';
import { ApiStandardErrors } from '../../../../common/http/api-errors.decorator';
import { RateLimit } from '../../../../common/rate-limit/rate-limit.decorator';
import { RequestAudit, type AuditContext } from '../../../audit/audit-context';
import { AuthTokenWithUserIdResponse } from '../../auth.response';
import { MfaCodeDto } from '../dto/mfa-login.dto';
import { ReauthDto } from '../dto/reauth.dto';
import { MfaLoginService } from '../mfa-login.service';
import { MfaBackupCodesResponse, TotpEnableDto, TotpSetupResponse } from './dto';
import { TotpService } from './totp.service';

/** TOTP enrolment and backup codes of the calling user. */
@ApiTags('Users')
@ApiStandardErrors()
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
  @ApiOperation({ operationId: 'setup_totp' })
  @ApiOkResponse({ type: TotpSetupResponse })
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
  @ApiOperation({ operationId: 'enable_totp' })
  @ApiOkResponse({ type: MfaBackupCodesResponse })
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
  @ApiOperation({ operationId: 'disable_totp' })
  @ApiNoContentResponse()
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
  @ApiOperation({ operationId: 'regenerate_backup_codes' })
  @ApiOkResponse({ type: MfaBackupCodesResponse })
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
@ApiStandardErrors()
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
  @ApiOperation({ operationId: 'login_mfa_totp' })
  @ApiOkResponse({ type: AuthTokenWithUserIdResponse })
  login(@Body() dto: MfaCodeDto): Promise<AuthTokenWithUserIdResponse> {
    return this.mfaLogin.redeem(dto.ticket, 'totp', dto.code);
  }
}
