import { Body, Controller, Header, HttpCode, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import { Public } from '../../common/auth/auth.decorator';
import { AuthorizationHeader } from '../../common/auth/authorization-header.decorator';
import { RouteCredential } from '../../common/auth/route-credential';
import { OAuthErrorShape } from '../../common/http/route-policy';
import { ApiOAuthErrors } from '../../common/openapi/api-errors.decorator';
import { RateLimit } from '../../common/rate-limit/rate-limit.decorator';
import { IntrospectRequestDto, RevokeRequestDto, TokenRequestDto } from './dto/oauth2.dto';
import { OAuth2ClientEndpointsService } from './oauth2-client-endpoints.service';
import { OAuth2IntrospectResponse, OAuth2TokenResponse } from './oauth2.response';
import { INTROSPECT_EXAMPLES, REVOKE_EXAMPLES, TOKEN_EXAMPLES } from './oauth2.examples';

// JSON first: it is what Swagger UI pre-fills and sends (its form editor turns numeric-looking
// strings into numbers); RFC 6749 clients send the form encoding, which is equally accepted.
const CONSUMES = ['application/json', 'application/x-www-form-urlencoded'] as const;

/**
 * RFC 6749 token endpoint, RFC 7662 introspection and RFC 7009 revocation. Client-authenticated
 * (HTTP Basic or body credentials), so no user auth; bodies are read by hand and every error
 * is in the RFC 6749 §5.2 shape.
 */
@ApiTags('OAuth2')
// Basic, or no scheme at all when client_id/client_secret travel in the body.
@ApiSecurity({})
@ApiSecurity('clientBasic')
@ApiOAuthErrors('invalid_request', 'invalid_client')
@OAuthErrorShape()
// HTTP Basic client credentials are checked before the body (oauth2-client-credentials.ts).
@RouteCredential('oauth2-client')
@Controller('oauth2')
export class OAuth2TokenController {
  constructor(private readonly endpoints: OAuth2ClientEndpointsService) {}

  /** Exchanges an authorization code (with PKCE) or a refresh token (rotated) for tokens. */
  @Post('token')
  @HttpCode(200)
  @Public()
  @RateLimit('oauth:token')
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  @ApiOperation({
    operationId: 'exchange_oauth2_token',
    summary: 'Token endpoint (RFC 6749)',
    description:
      'Exchanges an authorization code (`grant_type=authorization_code`, with the PKCE ' +
      '`code_verifier` when the consent had a challenge) or a refresh token ' +
      '(`grant_type=refresh_token`, rotated: the old one stops working) for tokens. The client ' +
      'authenticates with HTTP Basic (**clientBasic**) or `client_id` + `client_secret` in the ' +
      'body. Errors are RFC 6749 `{error, error_description}`.',
  })
  @ApiOAuthErrors('invalid_grant', 'unsupported_grant_type', 'invalid_scope')
  @ApiConsumes(...CONSUMES)
  @ApiBody({ type: TokenRequestDto, examples: TOKEN_EXAMPLES })
  @ApiOkResponse({
    type: OAuth2TokenResponse,
    description: 'The access and refresh tokens (and an ID token with the openid scope).',
  })
  token(
    @Body() body: unknown,
    @AuthorizationHeader() authorization?: string,
  ): Promise<OAuth2TokenResponse> {
    return this.endpoints.token(body, authorization);
  }

  /** RFC 7662: whether a token of this client is active, and what it grants. */
  @Post('introspect')
  @HttpCode(200)
  @Public()
  @RateLimit('oauth:introspect')
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  @ApiOperation({
    operationId: 'introspect_oauth2_token',
    summary: 'Token introspection (RFC 7662)',
    description:
      'Whether a token of the authenticated client is active, and what it grants; another ' +
      'client’s token is answered `{"active": false}`.',
  })
  @ApiConsumes(...CONSUMES)
  @ApiBody({ type: IntrospectRequestDto, examples: INTROSPECT_EXAMPLES })
  @ApiOkResponse({ type: OAuth2IntrospectResponse, description: 'The token’s state.' })
  introspect(
    @Body() body: unknown,
    @AuthorizationHeader() authorization?: string,
  ): Promise<OAuth2IntrospectResponse> {
    return this.endpoints.introspect(body, authorization);
  }

  /** RFC 7009: revokes the token and the rest of its grant; 200 with an empty body even when unknown. */
  @Post('token/revoke')
  @HttpCode(200)
  @Public()
  @RateLimit('oauth:token')
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  @ApiOperation({
    operationId: 'revoke_oauth2_token',
    summary: 'Token revocation (RFC 7009)',
    description:
      'Revokes the token and the rest of its grant; 200 with an empty body even when the token ' +
      'is unknown.',
  })
  @ApiConsumes(...CONSUMES)
  @ApiBody({ type: RevokeRequestDto, examples: REVOKE_EXAMPLES })
  @ApiOkResponse({ description: 'Revoked (or unknown): empty body.' })
  revoke(@Body() body: unknown, @AuthorizationHeader() authorization?: string): Promise<void> {
    return this.endpoints.revoke(body, authorization);
  }
}
