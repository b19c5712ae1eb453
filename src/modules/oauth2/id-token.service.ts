import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app.config';
import { UsersService } from '../users/users.service';
import { oidcUserClaims } from './oidc-claims';
import { OidcKeyStore } from './oidc-keys';

/** How long an ID token is valid: it proves a login to the client once, it is not a credential. */
export const ID_TOKEN_TTL_S = 3600;

export interface IdTokenInput {
  clientId: string;
  userId: string;
  /** The scopes of the tokens issued with it (`openid` among them). */
  scopes: readonly string[];
  authTime: Date;
  /** The consent's nonce (authorization_code grant only; never on refresh). */
  nonce: string | null;
}

/** OpenID Connect ID tokens (Core §2), signed with the key store's active key. */
@Injectable()
export class IdTokenService {
  private readonly issuer: string;

  constructor(
    config: AppConfig,
    private readonly keys: OidcKeyStore,
    private readonly users: UsersService,
  ) {
    this.issuer = config.publicUrl;
  }

  async issue(input: IdTokenInput): Promise<string> {
    const user = await this.users.getProfile(input.userId);
    const iat = Math.floor(Date.now() / 1000);
    return this.keys.sign({
      iss: this.issuer,
      sub: input.userId,
      aud: input.clientId,
      exp: iat + ID_TOKEN_TTL_S,
      iat,
      auth_time: Math.floor(input.authTime.getTime() / 1000),
      ...(input.nonce !== null ? { nonce: input.nonce } : {}),
      ...oidcUserClaims(user, input.scopes),
    });
  }
}
