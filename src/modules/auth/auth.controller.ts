import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
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
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { ApiErrors, ApiQueryReadByHand } from '../../common/openapi/api-errors.decorator';
import { RedactInLogs } from '../../common/http/route-policy';
import { RateLimit } from '../../common/rate-limit/rate-limit.decorator';
import {
  AuthMfaRequiredResponse,
  AuthSessionResponse,
  AuthTokenWithUserIdResponse,
  HandoffInitiateResponse,
  HandoffStatusResponse,
  IpAuthorizationPollResponse,
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
import { REAUTH_ERRORS } from './mfa/reauth.errors';
import { UsernameSuggestionsDto } from './dto/username-suggestions.dto';
import { EmailFlowsService } from './email-flows.service';
import { HandoffService } from './handoff.service';
import { IpAuthorizationService } from './ip-authorization.service';
import { RequestAudit, type AuditContext } from '../audit/audit-context';
import { originOf } from './origin';
import { SessionsService } from './sessions.service';
import { UsernameSuggestionsService } from './username-suggestions.service';
import {
  EMAIL_TOKEN_EXAMPLES,
  FORGOT_PASSWORD_EXAMPLES,
  HANDOFF_COMPLETE_EXAMPLES,
  IP_TICKET_EXAMPLES,
  LOGIN_EXAMPLES,
  LOGOUT_SESSIONS_EXAMPLES,
  REGISTER_EXAMPLES,
  TOKEN_AND_PASSWORD_EXAMPLES,
  USERNAME_SUGGESTIONS_EXAMPLES,
} from './auth.examples';

export { originOf };

const LOGIN_RESULT = {
  description:
    'Logged in: the session `token` and `user_id`; or, when the account has a second factor, ' +
    '`mfa: true` with a `ticket` for the /auth/login/mfa routes.',
  schema: {
    oneOf: [
      { $ref: getSchemaPath(AuthTokenWithUserIdResponse) },
      { $ref: getSchemaPath(AuthMfaRequiredResponse) },
    ],
  },
};

@ApiTags('Auth')
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
  @ApiOperation({
    operationId: 'register',
    summary: 'Register an account',
    description:
      'Creates an account and logs it in (the answer holds the session `token`); an e-mail ' +
      'address gets a verification mail. Refused when registration is off, or when the instance ' +
      'only allows single sign-on.',
  })
  @ApiOkResponse(LOGIN_RESULT)
  @ApiErrors(
    ErrorCode.SsoRequired,
    ErrorCode.RegistrationDisabled,
    ErrorCode.Conflict,
    ['date_of_birth', FieldErrorCode.DateOfBirthInvalid],
    ['date_of_birth', FieldErrorCode.DateOfBirthUnderage],
    ['email', FieldErrorCode.EmailBanned],
    ['email', FieldErrorCode.EmailAlreadyRegistered],
    ['username', FieldErrorCode.UsernameTooManyUsers],
  )
  @ApiBody({ type: RegisterDto, examples: REGISTER_EXAMPLES })
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
  @ApiOperation({
    operationId: 'login',
    summary: 'Log in with e-mail and password',
    description:
      'Answers a session token, or an MFA ticket when the account has a second factor. From an ' +
      'IP address the account never used (and without MFA): 403 `IP_AUTHORIZATION_REQUIRED` ' +
      'with a `ticket`, and an e-mailed link; follow it, then poll ' +
      '`GET /auth/ip-authorization/poll`. Five failures per address in 15 minutes: 429.',
  })
  @ApiOkResponse(LOGIN_RESULT)
  @ApiErrors(
    ErrorCode.SsoRequired,
    ErrorCode.IpAuthorizationRequired,
    ['email', FieldErrorCode.InvalidLogin],
    ['password', FieldErrorCode.InvalidLogin],
  )
  @ApiBody({ type: LoginDto, examples: LOGIN_EXAMPLES })
  login(@Body() dto: LoginDto, @Req() req: ParleyRequest): Promise<AuthLoginResult> {
    return this.auth.login(dto, originOf(req));
  }

  /** Ends the calling session. */
  @Post('logout')
  @HttpCode(204)
  @Auth({ kind: 'user' })
  @RateLimit('auth:sessions')
  @ApiOperation({ operationId: 'logout', summary: 'Log out (end this session)' })
  @ApiNoContentResponse({ description: 'The session is ended; its token no longer works.' })
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
  @ApiOperation({
    operationId: 'list_auth_sessions',
    summary: 'List my sessions',
    description: 'The calling user’s sessions; `current` marks the one making the request.',
  })
  @ApiOkResponse({ type: [AuthSessionResponse], description: 'The sessions, newest first.' })
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
  @ApiOperation({
    operationId: 'logout_auth_sessions',
    summary: 'End some of my sessions',
    description:
      'Ends the listed sessions of the calling user (at most 100, by `id_hash` from the list). ' +
      'Confirmed by `password` (or `mfa_method` + `mfa_code` when the account has MFA), or by a ' +
      'login or re-authentication on this session in the last 5 minutes.',
  })
  @ApiNoContentResponse({ description: 'The listed sessions are ended (unknown ones ignored).' })
  @ApiErrors(...REAUTH_ERRORS)
  @ApiBody({ type: LogoutSessionsDto, examples: LOGOUT_SESSIONS_EXAMPLES })
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
  @ApiOperation({
    operationId: 'verify_email',
    summary: 'Verify the e-mail address',
    description: 'With the token from the verification mail (valid 24 hours, single use).',
  })
  @ApiNoContentResponse({ description: 'The address is verified.' })
  @ApiErrors(ErrorCode.InvalidEmailToken)
  @ApiBody({ type: EmailTokenDto, examples: EMAIL_TOKEN_EXAMPLES })
  verifyEmail(@Body() dto: EmailTokenDto): Promise<void> {
    return this.emailFlows.verify(dto.token);
  }

  /** Sends a new verification mail to the calling user's address (nothing if already verified). */
  @Post('verify/resend')
  @HttpCode(204)
  @Auth({ kind: 'user' })
  @RateLimit('auth:verify')
  @ApiOperation({
    operationId: 'resend_verification_email',
    summary: 'Resend the verification mail',
    description: 'To the calling user’s address; nothing is sent when it is already verified.',
  })
  @ApiNoContentResponse({ description: 'Sent (or already verified).' })
  @ApiErrors(['email', FieldErrorCode.EmailRequired])
  resendVerification(@CurrentCaller() caller: SessionCaller): Promise<void> {
    return this.emailFlows.resendVerification(caller.userId);
  }

  /** Sends a password-reset mail if the address has an account; always 204. */
  @Post('forgot')
  @HttpCode(204)
  @Public()
  @RateLimit('auth:forgot')
  @ApiOperation({
    operationId: 'forgot_password',
    summary: 'Request a password-reset mail',
    description:
      'Sends a reset link (valid 1 hour) if the address has an account. Always 204, so the ' +
      'answer does not tell whether the address is registered.',
  })
  @ApiNoContentResponse({ description: 'Accepted (a mail is sent if the address has an account).' })
  @ApiErrors(ErrorCode.SsoRequired)
  @ApiBody({ type: ForgotPasswordDto, examples: FORGOT_PASSWORD_EXAMPLES })
  forgot(@Body() dto: ForgotPasswordDto): Promise<void> {
    return this.emailFlows.forgot(dto.email);
  }

  /** Sets a new password with the e-mailed token (1 h), ends every session and logs in. */
  @Post('reset')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:forgot')
  @ApiOperation({
    operationId: 'reset_password',
    summary: 'Reset the password',
    description:
      'Sets a new password with the e-mailed token (1 hour), ends every session and logs in.',
  })
  @ApiOkResponse(LOGIN_RESULT)
  @ApiErrors(ErrorCode.SsoRequired, ErrorCode.InvalidEmailToken)
  @ApiBody({ type: TokenAndPasswordDto, examples: TOKEN_AND_PASSWORD_EXAMPLES })
  reset(@Body() dto: TokenAndPasswordDto, @Req() req: ParleyRequest): Promise<AuthLoginResult> {
    return this.emailFlows.reset(dto, originOf(req));
  }

  /** Restores the previous e-mail address (token from the revert mail, 48 h), sets a new password, ends every session and logs in. */
  @Post('email-revert')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:verify')
  @ApiOperation({
    operationId: 'revert_email_change',
    summary: 'Revert an e-mail change',
    description:
      'Restores the previous e-mail address with the token from the revert mail (48 hours), ' +
      'sets a new password, ends every session and logs in.',
  })
  @ApiOkResponse(LOGIN_RESULT)
  @ApiErrors(ErrorCode.InvalidEmailToken, ['email', FieldErrorCode.EmailAlreadyRegistered])
  @ApiBody({ type: TokenAndPasswordDto, examples: TOKEN_AND_PASSWORD_EXAMPLES })
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
  @ApiOperation({
    operationId: 'authorize_ip',
    summary: 'Authorize a new IP address',
    description:
      'With the token from the IP-authorization mail; the pending login then completes on ' +
      'its next poll.',
  })
  @ApiNoContentResponse({ description: 'The address is authorized.' })
  @ApiErrors(ErrorCode.InvalidEmailToken)
  @ApiBody({ type: EmailTokenDto, examples: EMAIL_TOKEN_EXAMPLES })
  authorizeIp(@Body() dto: EmailTokenDto): Promise<void> {
    return this.ipAuthorization.authorize(dto.token);
  }

  /** Sends the IP-authorization mail again: once per ticket, 30 s after the first. */
  @Post('ip-authorization/resend')
  @HttpCode(204)
  @Public()
  @RateLimit('auth:verify')
  @ApiOperation({
    operationId: 'resend_ip_authorization',
    summary: 'Resend the IP-authorization mail',
    description: 'Once per ticket, at least 30 seconds after the first mail (else 429).',
  })
  @ApiNoContentResponse({ description: 'Sent.' })
  @ApiErrors(ErrorCode.InvalidIpAuthorizationTicket)
  @ApiBody({ type: IpAuthorizationTicketDto, examples: IP_TICKET_EXAMPLES })
  resendIpAuthorization(@Body() dto: IpAuthorizationTicketDto): Promise<void> {
    return this.ipAuthorization.resend(dto.ticket);
  }

  /**
   * `{completed:false}` until the e-mailed link was followed, then `{completed:true, token,
   * user_id}` once; the ticket is then consumed (400 `INVALID_IP_AUTHORIZATION_TICKET`).
   */
  @Get('ip-authorization/poll')
  @Public()
  @RedactInLogs({ query: ['ticket'] })
  @RateLimit('auth:sessions')
  @ApiOperation({
    operationId: 'poll_ip_authorization',
    summary: 'Poll an IP authorization',
    description:
      'Answers `{completed: false}` until the e-mailed link was followed, then once ' +
      '`{completed: true, token, user_id}`; the ticket is then consumed (400 ' +
      '`INVALID_IP_AUTHORIZATION_TICKET`).',
  })
  @ApiQuery({ name: 'ticket', type: String, required: true })
  @ApiQueryReadByHand()
  @ApiOkResponse({ type: IpAuthorizationPollResponse, description: 'Pending, or the new session.' })
  @ApiErrors(ErrorCode.InvalidIpAuthorizationTicket)
  pollIpAuthorization(@Query('ticket') ticket: unknown): Promise<IpAuthorizationPollResponse> {
    return this.ipAuthorization.poll(typeof ticket === 'string' ? ticket : '');
  }

  /** Starts a handoff on a device without a session: shows a code valid 5 minutes. */
  @Post('handoff/initiate')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:sessions')
  @ApiOperation({
    operationId: 'initiate_handoff',
    summary: 'Start a device handoff',
    description:
      'On a device without a session: a code (valid 5 minutes) to enter on a logged-in device, ' +
      'which completes it; poll the status route for the new session.',
  })
  @ApiOkResponse({ type: HandoffInitiateResponse, description: 'The code and its expiry.' })
  initiateHandoff(@Req() req: ParleyRequest): Promise<HandoffInitiateResponse> {
    return this.handoff.initiate(originOf(req));
  }

  /** A logged-in device completes the code with its own token and user id: a new session is minted for the other device. */
  @Post('handoff/complete')
  @HttpCode(204)
  @Auth({ kind: 'user' })
  @RateLimit('auth:sessions')
  @ApiOperation({
    operationId: 'complete_handoff',
    summary: 'Complete a device handoff',
    description:
      'A logged-in device confirms the code with its own `token` and `user_id` (those of the ' +
      'calling session, else 403); a new session is minted for the other device.',
  })
  @ApiNoContentResponse({ description: 'Completed: the other device gets its session.' })
  @ApiErrors(ErrorCode.InvalidHandoffCode, ErrorCode.HandoffCodeExpired)
  @ApiBody({ type: HandoffCompleteDto, examples: HANDOFF_COMPLETE_EXAMPLES })
  completeHandoff(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: HandoffCompleteDto,
  ): Promise<void> {
    return this.handoff.complete(caller, dto);
  }

  /** `pending`, then `completed` with the token (once), then `expired` (also at TTL). */
  @Get('handoff/:code/status')
  @Public()
  @RedactInLogs({ params: ['code'] })
  @RateLimit('auth:sessions')
  @ApiOperation({
    operationId: 'get_handoff_status',
    summary: 'Poll a device handoff',
    description:
      'Answers `pending`, then `completed` with the token (once), then `expired` (also at the ' +
      'end of the 5 minutes).',
  })
  @ApiParam({ name: 'code', example: 'K7PD-3QXM' })
  @ApiOkResponse({ type: HandoffStatusResponse, description: 'The handoff’s status.' })
  @ApiErrors(ErrorCode.InvalidHandoffCode)
  handoffStatus(@Param('code') code: string): Promise<HandoffStatusResponse> {
    return this.handoff.status(code);
  }

  /** Up to 5 available usernames derived from a display name (any script). */
  @Post('username-suggestions')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:register')
  @ApiOperation({
    operationId: 'get_username_suggestions',
    summary: 'Suggest usernames',
    description: 'Up to 5 available usernames derived from a display name (any script).',
  })
  @ApiOkResponse({ type: UsernameSuggestionsResponse, description: 'The suggestions.' })
  @ApiBody({ type: UsernameSuggestionsDto, examples: USERNAME_SUGGESTIONS_EXAMPLES })
  usernameSuggestions(@Body() dto: UsernameSuggestionsDto): Promise<UsernameSuggestionsResponse> {
    return this.suggestions.suggest(dto.global_name);
  }
}
