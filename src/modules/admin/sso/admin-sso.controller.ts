import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { SsoConfigResponse } from '../../auth/sso/sso.response';
import { SsoService } from '../../auth/sso/sso.service';
import { AdminAcl } from '../acls';
import { AdminRoute } from '../admin-route.decorator';

@ApiTags('Admin')
@Controller('admin/sso')
export class AdminSsoController {
  constructor(private readonly sso: SsoService) {}

  @Get('config')
  @AdminRoute({
    operationId: 'get_sso_config',
    summary: "Read the instance's single sign-on configuration",
    acl: AdminAcl.InstanceConfigView,
    description:
      'The `SSO_*` settings as the server runs with them — the client secret only as ' +
      '`client_secret_set` — and the endpoints read from the issuer’s discovery document ' +
      '(null when SSO is off or the issuer cannot be reached).',
  })
  @ApiOkResponse({ type: SsoConfigResponse, description: 'The SSO configuration.' })
  config(): Promise<SsoConfigResponse> {
    return this.sso.adminConfig();
  }
}
