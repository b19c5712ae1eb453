import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { ParleyRequest } from '../../common/auth/caller';
import { parseBasicCredentials } from './client-credentials';
import { OAuth2TokensService } from './oauth2-tokens.service';

/**
 * On the client-authenticated endpoints (token, introspection, revocation): a client that
 * authenticates with HTTP Basic is checked before its body is read, so wrong credentials cost
 * one cached lookup and never a parse (401 `invalid_client`). Body credentials
 * (`client_secret_post`) can only be checked after the body; the service checks both kinds.
 */
@Injectable()
export class ClientBasicGuard implements CanActivate {
  constructor(private readonly tokens: OAuth2TokensService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const header = context.switchToHttp().getRequest<ParleyRequest>().headers.authorization;
    if (typeof header === 'string' && /^basic /i.test(header)) {
      const { clientId, clientSecret } = parseBasicCredentials(header);
      await this.tokens.authenticateClient({
        clientId,
        clientSecret,
        method: 'client_secret_basic',
      });
    }
    return true;
  }
}
