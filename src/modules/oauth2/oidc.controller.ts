import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/auth/auth.decorator';
import { RateLimit } from '../../common/rate-limit/rate-limit.decorator';
import { OAuth2MetadataService } from './oauth2-metadata.service';
import { JwksResponse, OidcConfigurationResponse } from './oidc.response';

/** "Sign in with Parley": OpenID Connect discovery and the ID-token signing keys. */
@ApiTags('OAuth2')
@Controller()
export class OidcController {
  constructor(private readonly metadata: OAuth2MetadataService) {}

  /** OpenID Connect Discovery 1.0 provider metadata (also served at the host root). */
  @Get('.well-known/openid-configuration')
  @Public()
  @RateLimit('discovery')
  @Header('Access-Control-Allow-Origin', '*')
  @ApiOperation({
    operationId: 'get_openid_configuration',
    summary: 'OpenID Connect discovery document',
  })
  @ApiOkResponse({
    type: OidcConfigurationResponse,
    description: 'The provider metadata (also served at the host root).',
  })
  configuration(): OidcConfigurationResponse {
    return this.metadata.openIdConfiguration();
  }

  /** The public keys that verify ID tokens (JWKS): the active key and older ones kept for rotation. */
  @Get('oauth2/keys')
  @Public()
  @RateLimit('discovery')
  @Header('Access-Control-Allow-Origin', '*')
  // Clients refetch on an unknown `kid`, so a rotation does not wait for this to expire.
  @Header('Cache-Control', 'public, max-age=3600')
  @ApiOperation({ operationId: 'get_oauth2_keys', summary: 'ID-token signing keys (JWKS)' })
  @ApiOkResponse({
    type: JwksResponse,
    description: 'The active key and older ones kept for rotation.',
  })
  keys(): JwksResponse {
    return this.metadata.jwks();
  }
}
