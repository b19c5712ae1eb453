import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/auth/auth.decorator';
import { RateLimit } from '../../common/rate-limit/rate-limit.decorator';
import { OAuth2MetadataService } from './oauth2-metadata.service';
import { OAuth2ServerMetadataResponse } from './oauth2.response';

@ApiTags('OAuth2')
@Controller('.well-known')
export class OAuth2MetadataController {
  constructor(private readonly metadata: OAuth2MetadataService) {}

  /** RFC 8414 authorization server metadata (also served at the host root). */
  @Get('oauth-authorization-server')
  @Public()
  @RateLimit('discovery')
  @Header('Access-Control-Allow-Origin', '*')
  @ApiOperation({
    operationId: 'get_oauth2_authorization_server_metadata',
    summary: 'OAuth2 authorization server metadata (RFC 8414)',
    description: 'The endpoints, scopes and methods this server supports; also at the host root.',
  })
  @ApiOkResponse({ type: OAuth2ServerMetadataResponse, description: 'The metadata document.' })
  get(): OAuth2ServerMetadataResponse {
    return this.metadata.document();
  }
}
