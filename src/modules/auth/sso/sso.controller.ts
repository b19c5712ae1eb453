import { Body, Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../../common/auth/auth.decorator';
import type { ParleyRequest } from '../../../common/auth/caller';
import { ErrorCode } from '../../../common/errors/error-code';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { ApiErrors } from '../../../common/openapi/api-errors.decorator';
import { RateLimit } from '../../../common/rate-limit/rate-limit.decorator';
import { originOf } from '../origin';
import { SsoCompleteDto, SsoStartDto } from './sso.dto';
import { SsoCompleteResponse, SsoStartResponse, SsoStatusResponse } from './sso.response';
import { SsoService } from './sso.service';
import { SSO_COMPLETE_EXAMPLES, SSO_START_EXAMPLES } from '../auth.examples';

/** Single sign-on with the instance's OpenID Connect issuer. */
@ApiTags('Auth')
@Controller('auth/sso')
export class SsoController {
  constructor(private readonly sso: SsoService) {}

  /** Whether SSO is on (and required), the provider's name and the redirect URI. */
  @Get('status')
  @Public()
  @RateLimit('discovery')
  @ApiOperation({
    operationId: 'sso_status',
    summary: 'Single sign-on status',
    description:
      'Whether SSO is on (and required instead of passwords), the provider’s name and the ' +
      'redirect URI to register at the issuer.',
  })
  @ApiOkResponse({ type: SsoStatusResponse, description: 'The SSO status.' })
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
  @ApiOperation({
    operationId: 'sso_start',
    summary: 'Start a single sign-on',
    description:
      'Send the browser to `authorization_url`. The issuer comes back to `redirect_uri` with ' +
      '`code` and `state` (single use, 10 minutes), which the web app posts to the complete ' +
      'route. `redirect_to` must be on the web app’s origin.',
  })
  @ApiOkResponse({ type: SsoStartResponse, description: 'Where to send the browser.' })
  @ApiErrors(ErrorCode.SsoNotEnabled, ErrorCode.SsoProviderUnavailable, [
    'redirect_to',
    FieldErrorCode.InvalidUrl,
  ])
  @ApiBody({ type: SsoStartDto, examples: SSO_START_EXAMPLES })
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
  @ApiOperation({
    operationId: 'sso_complete',
    summary: 'Complete a single sign-on',
    description:
      'Exchanges the code (with the PKCE verifier), verifies the ID token (signature by the ' +
      'issuer’s keys, issuer, audience, nonce) and answers a session for the linked account, the ' +
      'account with the same verified e-mail address, or a new one when auto-provisioning is on.',
  })
  @ApiOkResponse({
    type: SsoCompleteResponse,
    description: 'Signed in: the session and where to send the browser.',
  })
  @ApiErrors(
    ErrorCode.SsoNotEnabled,
    ErrorCode.InvalidSsoState,
    ErrorCode.SsoProviderUnavailable,
    ErrorCode.SsoExchangeFailed,
    ErrorCode.SsoEmailRequired,
    ErrorCode.SsoDomainNotAllowed,
    ErrorCode.SsoAccountNotFound,
    ErrorCode.Conflict,
    ['email', FieldErrorCode.EmailBanned],
    ['email', FieldErrorCode.EmailAlreadyRegistered],
    ['username', FieldErrorCode.UsernameTooManyUsers],
  )
  @ApiBody({ type: SsoCompleteDto, examples: SSO_COMPLETE_EXAMPLES })
  complete(@Body() dto: SsoCompleteDto, @Req() req: ParleyRequest): Promise<SsoCompleteResponse> {
    return this.sso.complete(dto.code, dto.state, originOf(req));
  }
}
