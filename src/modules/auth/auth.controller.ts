import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { Auth, CurrentCaller, Public } from '../../common/auth/auth.decorator';
import type { ParleyRequest, SessionCaller } from '../../common/auth/caller';
import { ApiStandardErrors } from '../../common/http/api-errors.decorator';
import { RateLimit } from '../../common/rate-limit/rate-limit.decorator';
import {
  AuthMfaRequiredResponse,
  AuthSessionResponse,
  AuthTokenWithUserIdResponse,
  HandoffInitiateResponse,
  HandoffStatusResponse,
  IpAuthorizationPollResponse,
  IpAuthorizationRequiredResponse,
  UsernameSuggestionsResponse,
  type AuthLoginResult,
} from './auth.response';
import { AuthService } from './auth.service';
import {
  EmailTokenDto,
  ForgotPasswordDto,
  IpAuthorizationTicketDto,
  TokenAndPasswordDto,
} from './dto/email-flows.dto';
import { HandoffCompleteDto } from './dto/handoff.dto';
import { LoginDto } from './dto/login.dto';
import { RegisterDto } from './dto/register.dto';
import { LogoutSessionsDto } from './dto/sessions.dto';
import { UsernameSuggestionsDto } from './dto/username-suggestions.dto';
import { EmailFlowsService } from './email-flows.service';
import { HandoffService } from './handoff.service';
import { IpAuthorizationService } from './ip-authorization.service';
import { RequestAudit, type AuditContext } from '../audit/audit-context';
import { originOf } from './origin';
import { SessionsService } from './sessions.service';
import { UsernameSuggestionsService } from './username-suggestions.service';

export { originOf };

const LOGIN_RESULT = {
  schema: {
    oneOf: [
      { $ref: getSchemaPath(AuthTokenWithUserIdResponse) },
      { $ref: getSchemaPath(AuthMfaRequiredResponse) },
    ],
  },
};

@ApiTags('Auth')
@ApiStandardErrors()
@ApiExtraModels(AuthTokenWithUserIdResponse, AuthMfaRequiredResponse)
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly sessions: SessionsService,
    private readonly emailFlows: EmailFlowsService,
    private readonly ipAuthorization: IpAuthorizationService,
    private readonly handoff: HandoffService,
    private readonly suggestions: UsernameSuggestionsService,
  ) {}

  /** Creates an account and logs it in; an e-mail address gets a verification mail. */
  @Post('register')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:register')
  @ApiOperation({ operationId: 'register' })
  @ApiOkResponse(LOGIN_RESULT)
  register(@Body() dto: RegisterDto, @Req() req: ParleyRequest): Promise<AuthLoginResult> {
    return this.auth.register(dto, originOf(req));
  }

  /**
   * Logs in with e-mail and password: a token, or an MFA ticket when the account has a second
   * factor. From an IP address the account never used (and without MFA): 403
   * `IP_AUTHORIZATION_REQUIRED` and an e-mailed link. Five failures per address in 15 minutes: 429.
   */
  @Post('login')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:login')
  @ApiOperation({ operationId: 'login' })
  @ApiOkResponse(LOGIN_RESULT)
  @ApiForbiddenResponse({
    type: IpAuthorizationRequiredResponse,
    description: 'New IP address: follow the e-mailed link, then poll the ticket',
  })
  login(@Body() dto: LoginDto, @Req() req: ParleyRequest): Promise<AuthLoginResult> {
    return this.auth.login(dto, originOf(req));
  }

  /** Ends the calling session. */
  @Post('logout')
  @HttpCode(204)
  @Auth({ kind: 'user' })
  @RateLimit('auth:sessions')
  @ApiOperation({ operationId: 'logout' })
  @ApiNoContentResponse()
  async logout(
    @CurrentCaller() caller: SessionCaller,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    await this.sessions.logout(caller, audit);
  }

  /** The calling user's sessions; `current` marks the one making the request. */
  @Get('sessions')
  @Auth({ kind: 'user' })
  @RateLimit('auth:sessions')
  @ApiOperation({ operationId: 'list_auth_sessions' })
  @ApiOkResponse({ type: [AuthSessionResponse] })
  listSessions(@CurrentCaller() caller: SessionCaller): Promise<AuthSessionResponse[]> {
    return this.sessions.listResponses(caller);
  }

  /**
   * Ends the listed sessions of the calling user (at most 100). Confirmed by `password` (or
   * `mfa_method` + `mfa_code` when the account has MFA), or by a login or re-authentication on this
   * session in the last 5 minutes.
   */
  @Post('sessions/logout')
  @HttpCode(204)
  @Auth({ kind: 'user' })
  @RateLimit('auth:sessions')
  @ApiOperation({ operationId: 'logout_auth_sessions' })
  @ApiNoContentResponse()
  async logoutSessions(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: LogoutSessionsDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    await this.sessions.logoutConfirmed(caller, dto.session_id_hashes, dto, audit);
  }

  /** Marks the e-mail address verified (token from the verification mail, valid 24 h). */
  @Post('verify')
  @HttpCode(204)
  @Public()
  @RateLimit('auth:verify')
  @ApiOperation({ operationId: 'verify_email' })
  @ApiNoContentResponse()
  verifyEmail(@Body() dto: EmailTokenDto): Promise<void> {
    return this.emailFlows.verify(dto.token);
  }

  /** Sends a new verification mail to the calling user's address (nothing if already verified). */
  @Post('verify/resend')
  @HttpCode(204)
  @Auth({ kind: 'user' })
  @RateLimit('auth:verify')
  @ApiOperation({ operationId: 'resend_verification_email' })
  @ApiNoContentResponse()
  resendVerification(@CurrentCaller() caller: SessionCaller): Promise<void> {
    return this.emailFlows.resendVerification(caller.userId);
  }

  /** Sends a password-reset mail if the address has an account; always 204. */
  @Post('forgot')
  @HttpCode(204)
  @Public()
  @RateLimit('auth:forgot')
  @ApiOperation({ operationId: 'forgot_password' })
  @ApiNoContentResponse()
  forgot(@Body() dto: ForgotPasswordDto): Promise<void> {
    return this.emailFlows.forgot(dto.email);
  }

  /** Sets a new password with the e-mailed token (1 h), ends every session and logs in. */
  @Post('reset')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:forgot')
  @ApiOperation({ operationId: 'reset_password' })
  @ApiOkResponse(LOGIN_RESULT)
  reset(@Body() dto: TokenAndPasswordDto, @Req() req: ParleyRequest): Promise<AuthLoginResult> {
    return this.emailFlows.reset(dto, originOf(req));
  }

  /** Restores the previous e-mail address (token from the revert mail, 48 h), sets a new password, ends every session and logs in. */
  @Post('email-revert')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:verify')
  @ApiOperation({ operationId: 'revert_email_change' })
  @ApiOkResponse(LOGIN_RESULT)
  emailRevert(
    @Body() dto: TokenAndPasswordDto,
    @Req() req: ParleyRequest,
  ): Promise<AuthLoginResult> {
    return this.emailFlows.revert(dto, originOf(req));
  }

  /** Authorizes the new IP address of a pending login (token from the e-mail). */
  @Post('authorize-ip')
  @HttpCode(204)
  @Public()
  @RateLimit('auth:verify')
  @ApiOperation({ operationId: 'authorize_ip' })
  @ApiNoContentResponse()
  authorizeIp(@Body() dto: EmailTokenDto): Promise<void> {
    return this.ipAuthorization.authorize(dto.token);
  }

  /** Sends the IP-authorization mail again: once per ticket, 30 s after the first. */
  @Post('ip-authorization/resend')
  @HttpCode(204)
  @Public()
  @RateLimit('auth:verify')
  @ApiOperation({ operationId: 'resend_ip_authorization' })
  @ApiNoContentResponse()
  resendIpAuthorization(@Body() dto: IpAuthorizationTicketDto): Promise<void> {
    return this.ipAuthorization.resend(dto.ticket);
  }

  /**
   * `{completed:false}` until the e-mailed link was followed, then `{completed:true, token,
   * user_id}` once; the ticket is then consumed (400 `INVALID_IP_AUTHORIZATION_TICKET`).
   */
  @Get('ip-authorization/poll')
  @Public()
  @RateLimit('auth:sessions')
  @ApiOperation({ operationId: 'poll_ip_authorization' })
  @ApiQuery({ name: 'ticket', type: String, required: true })
  @ApiOkResponse({ type: IpAuthorizationPollResponse })
  pollIpAuthorization(@Query('ticket') ticket: unknown): Promise<IpAuthorizationPollResponse> {
    return this.ipAuthorization.poll(typeof ticket === 'string' ? ticket : '');
  }

  /** Starts a handoff on a device without a session: shows a code valid 5 minutes. */
  @Post('handoff/initiate')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:sessions')
  @ApiOperation({ operationId: 'initiate_handoff' })
  @ApiOkResponse({ type: HandoffInitiateResponse })
  initiateHandoff(@Req() req: ParleyRequest): Promise<HandoffInitiateResponse> {
    return this.handoff.initiate(originOf(req));
  }

  /** A logged-in device completes the code with its own token and user id: a new session is minted for the other device. */
  @Post('handoff/complete')
  @HttpCode(204)
  @Auth({ kind: 'user' })
  @RateLimit('auth:sessions')
  @ApiOperation({ operationId: 'complete_handoff' })
  @ApiNoContentResponse()
  completeHandoff(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: HandoffCompleteDto,
  ): Promise<void> {
    return this.handoff.complete(caller, dto);
  }

  /** `pending`, then `completed` with the token (once), then `expired` (also at TTL). */
  @Get('handoff/:code/status')
  @Public()
  @RateLimit('auth:sessions')
  @ApiOperation({ operationId: 'get_handoff_status' })
  @ApiParam({ name: 'code', example: 'K7PD-3QXM' })
  @ApiOkResponse({ type: HandoffStatusResponse })
  handoffStatus(@Param('code') code: string): Promise<HandoffStatusResponse> {
    return this.handoff.status(code);
  }

  /** Up to 5 available usernames derived from a display name (any script). */
  @Post('username-suggestions')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:register')
  @ApiOperation({ operationId: 'get_username_suggestions' })
  @ApiOkResponse({ type: UsernameSuggestionsResponse })
  usernameSuggestions(@Body() dto: UsernameSuggestionsDto): Promise<UsernameSuggestionsResponse> {
    return this.suggestions.suggest(dto.global_name);
  }
}
