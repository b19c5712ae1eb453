import { Body, Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../../common/auth/auth.decorator';
import type { ParleyRequest } from '../../../common/auth/caller';
import { ApiStandardErrors } from '../../../common/http/api-errors.decorator';
import { RateLimit } from '../../../common/rate-limit/rate-limit.decorator';
import { originOf } from '../origin';
import {
  SsoCompleteDto,
  SsoCompleteResponse,
  SsoStartDto,
  SsoStartResponse,
  SsoStatusResponse,
} from './dto';
import { SsoService } from './sso.service';

/** Single sign-on with the instance's OpenID Connect issuer. */
@ApiTags('Auth')
@ApiStandardErrors()
@Controller('auth/sso')
export class SsoController {
  constructor(private readonly sso: SsoService) {}

  /** Whether SSO is on (and required), the provider's name and the redirect URI. */
  @Get('status')
  @Public()
  @RateLimit('discovery')
  @ApiOperation({ operationId: 'sso_status' })
  @ApiOkResponse({ type: SsoStatusResponse })
  status(): SsoStatusResponse {
    return this.sso.status();
  }

  /**
   * Starts a sign-in: send the browser to `authorization_url`. The issuer comes back to
   * `redirect_uri` with `code` and `state` (single use, 10 minutes), which the web app posts to
   * the complete route.
   */
  @Post('start')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:login')
  @ApiOperation({ operationId: 'sso_start' })
  @ApiOkResponse({ type: SsoStartResponse })
  start(@Body() dto: SsoStartDto): Promise<SsoStartResponse> {
    return this.sso.start(dto.redirect_to);
  }

  /**
   * Finishes a sign-in: exchanges the code (with the PKCE verifier), verifies the ID token
   * (signature by the issuer's keys, issuer, audience, nonce) and answers a session for the
   * linked account, the account with the same verified e-mail, or a new one when auto-provisioning
   * is on.
   */
  @Post('complete')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:login')
  @ApiOperation({ operationId: 'sso_complete' })
  @ApiOkResponse({ type: SsoCompleteResponse })
  complete(@Body() dto: SsoCompleteDto, @Req() req: ParleyRequest): Promise<SsoCompleteResponse> {
    return this.sso.complete(dto.code, dto.state, originOf(req));
  }
}
