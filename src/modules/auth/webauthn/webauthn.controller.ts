import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import { Auth, CurrentCaller, Public } from '../../../common/auth/auth.decorator';
import type { ParleyRequest, SessionCaller } from '../../../common/auth/caller';
import { ErrorCode } from '../../../common/errors/error-code';
import { ApiErrors } from '../../../common/openapi/api-errors.decorator';
import { RateLimit } from '../../../common/rate-limit/rate-limit.decorator';
import { ParseSnowflakePipe } from '../../../common/snowflake/parse-snowflake.pipe';
import { RequestAudit, type AuditContext } from '../../audit/audit-context';
import { AuthTokenWithUserIdResponse } from '../auth.response';
import { MfaTicketDto } from '../mfa/dto/mfa-login.dto';
import { ReauthDto } from '../mfa/dto/reauth.dto';
import { MfaLoginService } from '../mfa/mfa-login.service';
import { REAUTH_ERRORS } from '../mfa/reauth.errors';
import { originOf } from '../origin';
import {
  RegisterWebAuthnCredentialDto,
  RenameWebAuthnCredentialDto,
  WebAuthnAuthenticateDto,
  WebAuthnMfaDto,
} from './webauthn.dto';
import { WebAuthnCredentialResponse } from './webauthn.response';
import { WebAuthnService } from './webauthn.service';
import {
  MFA_TICKET_EXAMPLES,
  reauthExamples,
  REGISTER_WEBAUTHN_EXAMPLES,
  RENAME_WEBAUTHN_EXAMPLES,
  WEBAUTHN_AUTHENTICATE_EXAMPLES,
  WEBAUTHN_MFA_LOGIN_EXAMPLES,
} from '../auth.examples';

/** WebAuthn options are the standard JSON dictionaries (`PublicKeyCredential*OptionsJSON`). */
const OPTIONS_SCHEMA = {
  description: 'The options for the browser’s WebAuthn API (valid 5 minutes).',
  schema: {
    type: 'object',
    additionalProperties: true,
    description:
      'PublicKeyCredentialRequestOptionsJSON (or CreationOptionsJSON for registration); pass it to navigator.credentials.get()/create() and send its `challenge` back with the response.',
  },
} as const;

const credentialId = () => new ParseSnowflakePipe(ErrorCode.UnknownWebAuthnCredential);

/** The calling user's WebAuthn credentials (security keys and passkeys). */
@ApiTags('Users')
@Controller('users/@me/mfa/webauthn')
export class WebAuthnCredentialsController {
  constructor(private readonly webauthn: WebAuthnService) {}

  /**
   * Creation options for a new credential (at most 10 per account). Confirmed by `password` (or
   * a second factor), or a proof on this session in the last 5 minutes. The challenge is valid 5
   * minutes, for this session only.
   */
  @Post('credentials/registration-options')
  @HttpCode(200)
  @Auth({ kind: 'user' })
  @RateLimit('auth:login')
  @ApiOperation({
    operationId: 'webauthn_registration_options',
    summary: 'Start registering a passkey',
    description:
      'Creation options for a new credential (at most 10 per account). Confirmed by `password` ' +
      '(or a second factor), or a proof on this session in the last 5 minutes. The challenge is ' +
      'valid 5 minutes, for this session only.',
  })
  @ApiOkResponse(OPTIONS_SCHEMA)
  @ApiErrors(...REAUTH_ERRORS, ErrorCode.MaxWebAuthnCredentials)
  @ApiBody({ type: ReauthDto, examples: reauthExamples({}, 'Add a key') })
  registrationOptions(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: ReauthDto,
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    return this.webauthn.registrationOptions(caller, dto);
  }

  /** Verifies the authenticator's response to the registration options and keeps the credential; MFA is on. */
  @Post('credentials')
  @HttpCode(200)
  @Auth({ kind: 'user' })
  @RateLimit('auth:login')
  @ApiOperation({
    operationId: 'register_webauthn_credential',
    summary: 'Register a passkey',
    description:
      'Verifies the authenticator’s response to the registration options (send back their ' +
      '`challenge` with it) and keeps the credential; WebAuthn becomes one of the account’s ' +
      'second factors.',
  })
  @ApiOkResponse({ type: WebAuthnCredentialResponse, description: 'The new credential.' })
  @ApiErrors(ErrorCode.InvalidWebAuthnResponse, ErrorCode.MaxWebAuthnCredentials)
  @ApiBody({ type: RegisterWebAuthnCredentialDto, examples: REGISTER_WEBAUTHN_EXAMPLES })
  register(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: RegisterWebAuthnCredentialDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<WebAuthnCredentialResponse> {
    return this.webauthn.register(caller, dto.name, dto.challenge, dto.response, audit);
  }

  @Get('credentials')
  @Auth({ kind: 'user' })
  @ApiOperation({ operationId: 'list_webauthn_credentials', summary: 'List my passkeys' })
  @ApiOkResponse({
    type: [WebAuthnCredentialResponse],
    description: 'The calling user’s WebAuthn credentials.',
  })
  list(@CurrentCaller() caller: SessionCaller): Promise<WebAuthnCredentialResponse[]> {
    return this.webauthn.list(caller);
  }

  @Patch('credentials/:credential_id')
  @Auth({ kind: 'user' })
  @ApiOperation({ operationId: 'rename_webauthn_credential', summary: 'Rename a passkey' })
  @ApiOkResponse({ type: WebAuthnCredentialResponse, description: 'The renamed credential.' })
  // A NUL character in the name reaches PostgreSQL, which refuses it (400 BAD_REQUEST).
  @ApiErrors(ErrorCode.UnknownWebAuthnCredential, ErrorCode.BadRequest)
  @ApiBody({ type: RenameWebAuthnCredentialDto, examples: RENAME_WEBAUTHN_EXAMPLES })
  rename(
    @CurrentCaller() caller: SessionCaller,
    @Param('credential_id', credentialId()) id: string,
    @Body() dto: RenameWebAuthnCredentialDto,
  ): Promise<WebAuthnCredentialResponse> {
    return this.webauthn.rename(caller, id, dto.name);
  }

  /**
   * Deletes a credential (proof as for registration). Deleting the last one removes WebAuthn from
   * the account's factors.
   */
  @Delete('credentials/:credential_id')
  @HttpCode(204)
  @Auth({ kind: 'user' })
  @RateLimit('auth:login')
  @ApiOperation({
    operationId: 'delete_webauthn_credential',
    summary: 'Delete a passkey',
    description:
      'Needs a proof, as registration does. Deleting the last credential removes WebAuthn from ' +
      'the account’s second factors.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(...REAUTH_ERRORS, ErrorCode.UnknownWebAuthnCredential)
  @ApiBody({ type: ReauthDto, examples: reauthExamples({}, 'Delete the key') })
  remove(
    @CurrentCaller() caller: SessionCaller,
    @Param('credential_id', credentialId()) id: string,
    @Body() dto: ReauthDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    return this.webauthn.remove(caller, id, dto, audit);
  }

  /**
   * Request options to re-authenticate this session with a credential: send
   * `{"mfa_method": "webauthn", "mfa_code": "<JSON text of {challenge, response}>"}` to the
   * sensitive route.
   */
  @Post('reauth-options')
  @HttpCode(200)
  @Auth({ kind: 'user' })
  @RateLimit('auth:login')
  @ApiOperation({
    operationId: 'webauthn_reauth_options',
    summary: 'Re-authenticate with a passkey: options',
    description:
      'Request options to re-authenticate this session with a credential: then send ' +
      '`{"mfa_method": "webauthn", "mfa_code": "<JSON text of {challenge, response}>"}` to the ' +
      'sensitive route.',
  })
  @ApiOkResponse(OPTIONS_SCHEMA)
  @ApiErrors(ErrorCode.MfaMethodUnavailable)
  reauthOptions(
    @CurrentCaller() caller: SessionCaller,
  ): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.webauthn.reauthOptions(caller);
  }
}

/** WebAuthn logins: the MFA step and passwordless passkeys. */
@ApiTags('Auth')
@Controller('auth')
export class WebAuthnLoginController {
  constructor(
    private readonly webauthn: WebAuthnService,
    private readonly mfaLogin: MfaLoginService,
  ) {}

  /** Request options for the WebAuthn step of this MFA-required login (challenge bound to the ticket). */
  @Post('login/mfa/webauthn/authentication-options')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:login:mfa')
  @ApiOperation({
    operationId: 'login_mfa_webauthn_options',
    summary: 'Log in: WebAuthn step options',
    description:
      'Request options for the WebAuthn step of an MFA-required login (the challenge is bound ' +
      'to the ticket).',
  })
  @ApiOkResponse(OPTIONS_SCHEMA)
  @ApiErrors(ErrorCode.InvalidMfaTicket, ErrorCode.MfaMethodUnavailable)
  @ApiBody({ type: MfaTicketDto, examples: MFA_TICKET_EXAMPLES })
  mfaOptions(@Body() dto: MfaTicketDto): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.webauthn.mfaOptions(dto.ticket);
  }

  /** Finishes an MFA-required login with an assertion of one of the account's credentials. */
  @Post('login/mfa/webauthn')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:login:mfa')
  @ApiOperation({
    operationId: 'login_mfa_webauthn',
    summary: 'Log in: WebAuthn step',
    description:
      'Finishes an MFA-required login with an assertion of one of the account’s credentials ' +
      '(the `challenge` of the options and the authenticator’s `response`). 5 failures spend ' +
      'the ticket.',
  })
  @ApiOkResponse({ type: AuthTokenWithUserIdResponse, description: 'Logged in: the session.' })
  @ApiErrors(ErrorCode.InvalidMfaTicket, ErrorCode.InvalidMfaCode, ErrorCode.MfaMethodUnavailable)
  @ApiBody({ type: WebAuthnMfaDto, examples: WEBAUTHN_MFA_LOGIN_EXAMPLES })
  mfa(@Body() dto: WebAuthnMfaDto): Promise<AuthTokenWithUserIdResponse> {
    return this.mfaLogin.redeem(dto.ticket, 'webauthn', {
      challenge: dto.challenge,
      response: dto.response,
    });
  }

  /** Request options for a passwordless login with a passkey (user verification required). */
  @Post('webauthn/authentication-options')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:login')
  @ApiOperation({
    operationId: 'webauthn_authentication_options',
    summary: 'Passkey login: options',
    description:
      'Request options for a passwordless login with a passkey (user verification required).',
  })
  @ApiOkResponse(OPTIONS_SCHEMA)
  @ApiErrors(ErrorCode.SsoRequired)
  passwordlessOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.webauthn.passwordlessOptions();
  }

  /** Logs in with a passkey: the session of the account the credential belongs to. */
  @Post('webauthn/authenticate')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:login')
  @ApiOperation({
    operationId: 'webauthn_authenticate',
    summary: 'Log in with a passkey',
    description:
      'Verifies the assertion (the `challenge` of the options and the authenticator’s ' +
      '`response`) and answers a session of the account the credential belongs to.',
  })
  @ApiOkResponse({ type: AuthTokenWithUserIdResponse, description: 'Logged in: the session.' })
  @ApiErrors(ErrorCode.SsoRequired, ErrorCode.InvalidWebAuthnResponse)
  @ApiBody({ type: WebAuthnAuthenticateDto, examples: WEBAUTHN_AUTHENTICATE_EXAMPLES })
  authenticate(
    @Body() dto: WebAuthnAuthenticateDto,
    @Req() req: ParleyRequest,
  ): Promise<AuthTokenWithUserIdResponse> {
    return this.webauthn.authenticate(dto.challenge, dto.response, originOf(req));
  }
}
