import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { ParleyRequest } from '../../common/auth/caller';
import { RouteCredentials, type RouteCredentialResolver } from '../../common/auth/route-credential';
import type { OAuthError } from '../../common/errors/oauth-error';
import type { ApplicationEntity } from './application.entity';
import { invalidClient, parseBasicCredentials } from './client-credentials';
import { OAuth2TokensService } from './oauth2-tokens.service';

/** What a request presented: an authenticated client, or no Basic credentials at all. */
export type PresentedBasicClient = Readonly<ApplicationEntity> | { basic: false };

/**
 * The `oauth2-client` route credential of the client-authenticated endpoints (token,
 * introspection, revocation): a client that authenticates with HTTP Basic is checked in the
 * caller guard, before the rate limiter counts it and before its body is read, so wrong
 * credentials cost one cached lookup and never a parse (401 `invalid_client`). Body credentials
 * (`client_secret_post`) can only be checked after the body; the service checks both kinds.
 */
@Injectable()
export class OAuth2ClientCredentials
  implements RouteCredentialResolver<PresentedBasicClient>, OnModuleInit
{
  constructor(
    private readonly tokens: OAuth2TokensService,
    private readonly registry: RouteCredentials,
  ) {}

  onModuleInit(): void {
    this.registry.register('oauth2-client', this);
  }

  refusal(): OAuthError {
    return invalidClient();
  }

  async resolve(req: ParleyRequest): Promise<PresentedBasicClient | null> {
    const header = req.headers.authorization;
    if (typeof header !== 'string' || !/^basic /i.test(header)) return { basic: false };
    try {
      const { clientId, clientSecret } = parseBasicCredentials(header);
      return await this.tokens.authenticateClient({
        clientId,
        clientSecret,
        method: 'client_secret_basic',
      });
    } catch (err) {
      if ((err as OAuthError).error === 'invalid_client') return null;
      throw err;
    }
  }
}
