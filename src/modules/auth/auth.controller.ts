import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { Auth, CurrentCaller, Public } from '../../common/auth/auth.decorator';
import type { Caller, ParleyRequest } from '../../common/auth/caller';
import { ApiStandardErrors } from '../../common/http/api-errors.decorator';
import { RateLimit } from '../../common/rate-limit/rate-limit.decorator';
import {
  AuthMfaRequiredResponse,
  AuthTokenWithUserIdResponse,
  type AuthLoginResult,
} from './auth.response';
import { AuthService } from './auth.service';
import { LoginDto } from './dto/login.dto';
import { RegisterDto } from './dto/register.dto';
import { SessionsService } from './sessions.service';

export const originOf = (req: ParleyRequest) => ({
  ip: req.ip ?? null,
  userAgent: req.headers['user-agent'],
});

const LOGIN_RESULT = {
  schema: {
    oneOf: [
      { $ref: getSchemaPath(AuthTokenWithUserIdResponse) },
      { $ref: getSchemaPath(AuthMfaRequiredResponse) },
    ],
  },
};

@ApiTags('Auth')
@ApiStandardErrors()
@ApiExtraModels(AuthTokenWithUserIdResponse, AuthMfaRequiredResponse)
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly sessions: SessionsService,
  ) {}

  /** Creates an account and logs it in. */
  @Post('register')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:register')
  @ApiOperation({ operationId: 'register' })
  @ApiOkResponse(LOGIN_RESULT)
  register(@Body() dto: RegisterDto, @Req() req: ParleyRequest): Promise<AuthLoginResult> {
    return this.auth.register(dto, originOf(req));
  }

  /** Logs in with e-mail and password: a token, or an MFA ticket when the account has a second factor. */
  @Post('login')
  @HttpCode(200)
  @Public()
  @RateLimit('auth:login')
  @ApiOperation({ operationId: 'login' })
  @ApiOkResponse(LOGIN_RESULT)
  login(@Body() dto: LoginDto, @Req() req: ParleyRequest): Promise<AuthLoginResult> {
    return this.auth.login(dto, originOf(req));
  }

  /** Ends the calling session. */
  @Post('logout')
  @HttpCode(204)
  @Auth({ kind: 'user' })
  @RateLimit('auth:sessions')
  @ApiOperation({ operationId: 'logout' })
  @ApiNoContentResponse()
  async logout(@CurrentCaller() caller: Caller): Promise<void> {
    if (caller.kind === 'session') await this.sessions.revoke(caller.sessionId);
  }
}
