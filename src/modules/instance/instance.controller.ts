import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { HttpResponse } from '../../common/http/http-types';
import { Public } from '../../common/auth/auth.decorator';
import { RateLimit } from '../../common/rate-limit/rate-limit.decorator';
import { DiscoveryResponse } from './discovery.response';
import { InstanceService } from './instance.service';

@ApiTags('Instance')
@Controller('.well-known')
export class InstanceController {
  constructor(private readonly instance: InstanceService) {}

  /** Instance discovery: API endpoints, feature flags, limits and federation capabilities. */
  @Get('service')
  @Public()
  @RateLimit('discovery')
  @Header('Access-Control-Allow-Origin', '*')
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiOperation({
    operationId: 'get_well_known_service',
    summary: 'Instance discovery document',
    description:
      'API, gateway and OAuth2 URLs, enabled features, limits and federation capabilities. ' +
      'Also served at the host root.',
  })
  @ApiOkResponse({ type: DiscoveryResponse, description: 'The discovery document.' })
  getService(@Res() res: HttpResponse): void {
    // A Buffer with its Content-Type already set (@Header): sent as is, no serialization.
    res.send(this.instance.discoveryJson());
  }
}
