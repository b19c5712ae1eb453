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
  @ApiOperation({ operationId: 'authorize_consent' })
  @ApiOkResponse({ type: OAuth2ConsentResponse })
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
  @ApiOperation({ operationId: 'list_oauth2_authorizations' })
  @ApiOkResponse({ type: [OAuth2AuthorizationResponse] })
  authorizations(@CurrentCaller() caller: Caller): Promise<OAuth2AuthorizationResponse[]> {
    return this.consents.listAuthorizations(caller.userId);
  }

  /** Removes an authorization and revokes the application's tokens for this user. */
  @Delete('@me/authorizations/:application_id')
  @HttpCode(204)
  @Auth({ kind: 'user' })
  @ApiOperation({ operationId: 'delete_oauth2_authorization' })
  @ApiNoContentResponse()
  deauthorize(
    @CurrentCaller() caller: Caller,
    @Param('application_id') applicationId: string,
  ): Promise<void> {
    return this.consents.deauthorize(caller.userId, applicationId);
  }

  /** The access token's application, scopes and expiry (and user with `identify`). */
  @Get('@me')
  @Auth({ kind: 'bearer' })
  @ApiOperation({ operationId: 'get_oauth2_me' })
  @ApiOkResponse({ type: OAuth2MeResponse })
  getMe(@CurrentCaller() caller: BearerCaller): Promise<OAuth2MeResponse> {
    return this.me.me(caller);
  }

  /**
   * The token's user (`sub` = user id) with the OpenID Connect standard claims; needs `identify`
   * or `profile` (else 403 MISSING_OAUTH_SCOPE); e-mail only with the `email` scope.
   */
  @Get('userinfo')
  // identify or profile: checked by OAuth2MeService (the guard's scopes are all-of).
  @Auth({ kind: 'bearer' })
  @ApiOperation({ operationId: 'get_oauth2_userinfo' })
  @ApiOkResponse({ type: OAuth2UserInfoResponse })
  userInfo(@CurrentCaller() caller: BearerCaller): Promise<OAuth2UserInfoResponse> {
    return this.me.userInfo(caller);
  }
}
