import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { BearerCaller, Caller, SessionCaller } from '../../common/auth/caller';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { ConsentService } from './consent.service';
import { AuthorizeConsentDto } from './dto/oauth2.dto';
import { OAuth2MeService } from './oauth2-me.service';
import {
  OAuth2AuthorizationResponse,
  OAuth2ConsentResponse,
  OAuth2MeResponse,
  OAuth2UserInfoResponse,
} from './oauth2.response';
import { CONSENT_EXAMPLES } from './oauth2.examples';

@ApiTags('OAuth2')
@Controller('oauth2')
export class OAuth2Controller {
  constructor(
    private readonly consents: ConsentService,
    private readonly me: OAuth2MeService,
  ) {}

  /**
   * The logged-in user approves an authorization request. Returns the redirect_uri with `code`
   * and `state`; with `bot` + `guild_id` the bot also joins that guild. With `openid`, the
   * `nonce` is repeated in the ID token.
   */
  @Post('authorize/consent')
  @HttpCode(200)
  @Auth({ kind: 'user' })
  @ApiOperation({
    operationId: 'authorize_consent',
    summary: 'Approve an authorization request',
    description:
      'The logged-in user approves an application’s request. Answers the `redirect_uri` with ' +
      '`code` (single use, for POST /oauth2/token) and `state`. With the `bot` scope and ' +
      '`guild_id` the bot also joins that guild (needs MANAGE_GUILD there); a private bot only ' +
      'its owner may add. With `openid`, the `nonce` is repeated in the ID token. PKCE: S256 only.',
  })
  @ApiOkResponse({ type: OAuth2ConsentResponse, description: 'Where to send the browser back.' })
  @ApiErrors(
    ErrorCode.UnknownGuild,
    ErrorCode.MissingPermissions,
    ErrorCode.BannedFromGuild,
    ['client_id', FieldErrorCode.UnknownApplication],
    ['scope', FieldErrorCode.InvalidScope],
    ['redirect_uri', FieldErrorCode.RedirectUriMismatch],
    ['redirect_uri', FieldErrorCode.BaseTypeRequired],
    ['code_challenge_method', FieldErrorCode.CodeChallengeMethodUnsupported],
    ['guild_id', FieldErrorCode.BotScopeRequired],
    ['permissions', FieldErrorCode.PermissionsInvalid],
  )
  @ApiBody({ type: AuthorizeConsentDto, examples: CONSENT_EXAMPLES })
  consent(
    @CurrentCaller() caller: SessionCaller,
    @Body() dto: AuthorizeConsentDto,
  ): Promise<OAuth2ConsentResponse> {
    return this.consents.consent(caller, dto);
  }

  /** Applications the user has authorized. */
  @Get('@me/authorizations')
  @Auth({ kind: 'user' })
  @ApiOperation({
    operationId: 'list_oauth2_authorizations',
    summary: 'List my authorized applications',
  })
  @ApiOkResponse({
    type: [OAuth2AuthorizationResponse],
    description: 'The applications the user has authorized, with their scopes.',
  })
  authorizations(@CurrentCaller() caller: Caller): Promise<OAuth2AuthorizationResponse[]> {
    return this.consents.listAuthorizations(caller.userId);
  }

  /** Removes an authorization and revokes the application's tokens for this user. */
  @Delete('@me/authorizations/:application_id')
  @HttpCode(204)
  @Auth({ kind: 'user' })
  @ApiOperation({
    operationId: 'delete_oauth2_authorization',
    summary: 'Remove an authorization',
    description: 'Revokes every token the application holds for this user.',
  })
  @ApiNoContentResponse({ description: 'Removed; the application’s tokens are revoked.' })
  @ApiErrors(ErrorCode.UnknownApplication)
  deauthorize(
    @CurrentCaller() caller: Caller,
    @Param('application_id') applicationId: string,
  ): Promise<void> {
    return this.consents.deauthorize(caller.userId, applicationId);
  }

  /** The access token's application, scopes and expiry (and user with `identify`). */
  @Get('@me')
  @Auth({ kind: 'bearer' })
  @ApiOperation({
    operationId: 'get_oauth2_me',
    summary: 'Get the current authorization',
    description:
      'For an OAuth2 access token (**bearer**): its application, scopes and expiry, and the ' +
      'user with the `identify` scope.',
  })
  @ApiOkResponse({ type: OAuth2MeResponse, description: 'The token’s authorization.' })
  getMe(@CurrentCaller() caller: BearerCaller): Promise<OAuth2MeResponse> {
    return this.me.me(caller);
  }

  /**
   * OpenID Connect UserInfo (Core §5.3): `sub` for any token of an OpenID request (`openid`) or
   * with `identify`/`profile`; the profile with `identify` or `profile`; the e-mail with `email`.
   */
  @Get('userinfo')
  // openid, identify or profile: checked by OAuth2MeService (the guard's scopes are all-of).
  @Auth({ kind: 'bearer' })
  @ApiOperation({
    operationId: 'get_oauth2_userinfo',
    summary: 'OpenID Connect UserInfo',
    description:
      'The token’s user, as OpenID Connect Core §5.3 has it: `sub` (the user ID) and ' +
      '`auth_time` for any token with `openid`, `identify` or `profile` (else 403 ' +
      'MISSING_OAUTH_SCOPE); the profile — Parley’s user fields, `name`, ' +
      '`preferred_username` — with `identify` or `profile`; `email` and `email_verified` with ' +
      '`email`.',
  })
  @ApiOkResponse({ type: OAuth2UserInfoResponse, description: 'The user’s claims.' })
  @ApiErrors(ErrorCode.MissingOauthScope)
  userInfo(@CurrentCaller() caller: BearerCaller): Promise<OAuth2UserInfoResponse> {
    return this.me.userInfo(caller);
  }
}
