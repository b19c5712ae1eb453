import { Injectable } from '@nestjs/common';
import { OAuthError } from '../../common/errors/oauth-error';
import { presentedClient, readParams } from './client-credentials';
import { OAuth2TokensService } from './oauth2-tokens.service';
import type { OAuth2IntrospectResponse, OAuth2TokenResponse } from './oauth2.response';

/** Parses the client-authenticated endpoints' raw bodies and answers RFC errors. */
@Injectable()
export class OAuth2ClientEndpointsService {
  constructor(private readonly tokens: OAuth2TokensService) {}

  async token(body: unknown, authorization: string | undefined): Promise<OAuth2TokenResponse> {
    const params = readParams(body);
    const app = await this.tokens.authenticateClient(presentedClient(authorization, params));
    return this.tokens.grant(app, params);
  }

  async introspect(
    body: unknown,
    authorization: string | undefined,
  ): Promise<OAuth2IntrospectResponse> {
    const params = readParams(body);
    const app = await this.tokens.authenticateClient(presentedClient(authorization, params));
    if (!params.token) throw new OAuthError('invalid_request', 'token is required.');
    return this.tokens.introspect(app, params.token);
  }

  async revoke(body: unknown, authorization: string | undefined): Promise<void> {
    const params = readParams(body);
    const app = await this.tokens.authenticateClient(presentedClient(authorization, params));
    if (!params.token) throw new OAuthError('invalid_request', 'token is required.');
    // token_type_hint only speeds up a lookup; ours finds both kinds with one index.
    await this.tokens.revoke(app, params.token);
  }
}
