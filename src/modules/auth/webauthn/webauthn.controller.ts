import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import {
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import { Auth, CurrentCaller, Public } from '../../../common/auth/auth.decorator';
import type { ParleyRequest, SessionCaller } from '../../../common/auth/caller';
import { ErrorCode } from '../../../common/errors/error-code';
import { ApiStandardErrors } from '../../../common/http/api-errors.decorator';
import { RateLimit } from '../../../common/rate-limit/rate-limit.decorator';
import { ParseSnowflakePipe } from '../../../common/snowflake/parse-snowflake.pipe';
import { RequestAudit, type AuditContext } from '../../audit/audit-context';
import { AuthTokenWithUserIdResponse } from '../auth.response';
import { MfaTicketDto } from '../mfa/dto/mfa-login.dto';
import { ReauthDto } from '../mfa/dto/reauth.dto';
import { MfaLoginService } from '../mfa/mfa-login.service';
import { originOf } from '../origin';
import {
  RegisterWebAuthnCredentialDto,
  RenameWebAuthnCredentialDto,
  WebAuthnAuthenticateDto,
  WebAuthnCredentialResponse,
  WebAuthnMfaDto,
} from './dto';
import { WebAuthnService } from './webauthn.service';

/** WebAuthn options are the standard JSON dictionaries (`PublicKeyCredential*OptionsJSON`). */
const OPTIONS_SCHEMA = {
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
@ApiStandardErrors()
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
  @ApiOperation({ operationId: 'webauthn_registration_options' })
  @ApiOkResponse(OPTIONS_SCHEMA)
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
  @ApiOperation({ operationId: 'register_webauthn_credential' })
  @ApiOkResponse({ type: WebAuthnCredentialResponse })
  register(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: RegisterWebAuthnCredentialDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<WebAuthnCredentialResponse> {
    return this.webauthn.register(caller, dto.name, dto.challenge, dto.response, audit);
  }

  @Get('credentials')
  @Auth({ kind: 'user' })
  @ApiOperation({ operationId: 'list_webauthn_credentials' })
  @ApiOkResponse({ type: [WebAuthnCredentialResponse] })
  list(@CurrentCaller() caller: SessionCaller): Promise<WebAuthnCredentialResponse[]> {
    return this.webauthn.list(caller);
  }

  @Patch('credentials/:credential_id')
  @Auth({ kind: 'user' })
  @ApiOperation({ operationId: 'rename_webauthn_credential' })
  @ApiParam({ name: 'credential_id', description: 'The credential `id` (a snowflake).' })
  @ApiOkResponse({ type: WebAuthnCredentialResponse })
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
  @ApiOperation({ operationId: 'delete_webauthn_credential' })
  @ApiParam({ name: 'credential_id', description: 'The credential `id` (a snowflake).' })
  @ApiNoContentResponse()
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
  @ApiOperation({ operationId: 'webauthn_reauth_options' })
  @ApiOkResponse(OPTIONS_SCHEMA)
  reauthOptions(
    @CurrentCaller() caller: SessionCaller,
  ): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.webauthn.reauthOptions(caller);
  }
}

/** WebAuthn logins: the MFA step and passwordless passkeys. */
@ApiTags('Auth')
@ApiStandardErrors()
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
  @ApiOperation({ operationId: 'login_mfa_webauthn_options' })
  @ApiOkResponse(OPTIONS_SCHEMA)
  mfaOptions(@Body() dto: MfaTicketDto): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.webauthn.mfaOptions(dto.ticket);
  }

  /** Finishes an MFA-required login with an assertion of one of the account's credentials. */
  @Post('login/mfa/webauthn')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:login:mfa')
  @ApiOperation({ operationId: 'login_mfa_webauthn' })
  @ApiOkResponse({ type: AuthTokenWithUserIdResponse })
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
  @ApiOperation({ operationId: 'webauthn_authentication_options' })
  @ApiOkResponse(OPTIONS_SCHEMA)
  passwordlessOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.webauthn.passwordlessOptions();
  }

  /** Logs in with a passkey: the session of the account the credential belongs to. */
  @Post('webauthn/authenticate')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:login')
  @ApiOperation({ operationId: 'webauthn_authenticate' })
  @ApiOkResponse({ type: AuthTokenWithUserIdResponse })
  authenticate(
    @Body() dto: WebAuthnAuthenticateDto,
    @Req() req: ParleyRequest,
  ): Promise<AuthTokenWithUserIdResponse> {
    return this.webauthn.authenticate(dto.challenge, dto.response, originOf(req));
  }
}
