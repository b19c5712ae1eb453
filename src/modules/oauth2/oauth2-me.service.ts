import { Injectable } from '@nestjs/common';
import type { BearerCaller } from '../../common/auth/caller';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { toUserPartial } from '../users/user.mapper';
import { UsersService } from '../users/users.service';
import { ApplicationsService } from './applications.service';
import { OAuth2TokensService } from './oauth2-tokens.service';
import type { OAuth2MeResponse, OAuth2UserInfoResponse } from './oauth2.response';
import { oidcUserClaims } from './oidc-claims';
import { grantsProfile } from './scopes';

/**
 * What an access token may read about its user: `identify` (or `profile`) for the profile,
 * `email` for the address.
 */
@Injectable()
export class OAuth2MeService {
  constructor(
    private readonly apps: ApplicationsService,
    private readonly users: UsersService,
    private readonly tokens: OAuth2TokensService,
  ) {}

  async me(caller: BearerCaller): Promise<OAuth2MeResponse> {
    const app = await this.apps.findCached(caller.applicationId);
    if (!app) throw new ApiError(ErrorCode.UnknownApplication);
    const out: OAuth2MeResponse = {
      application: {
        id: app.id,
        name: app.name,
        description: app.description,
        icon: app.icon,
        bot_public: app.botPublic,
        bot_require_code_grant: app.botRequireCodeGrant,
        flags: app.flags,
      },
      scopes: caller.scopes,
      expires: caller.expiresAt.toISOString(),
    };
    if (grantsProfile(caller.scopes)) {
      const user = await this.users.getProfile(caller.userId);
      out.user = toUserPartial(user);
      if (caller.scopes.includes('email')) {
        out.user.email = user.email;
        out.user.verified = user.emailVerified;
      }
    }
    return out;
  }

  /**
   * The OpenID Connect UserInfo endpoint (Core §5.3), plus Parley's user fields. Any token of an
   * OpenID request (`openid`) or with `identify`/`profile` may call it: `sub` and `auth_time`
   * always; the profile (Parley's fields, `name`, `preferred_username`) with `identify` or
   * `profile`; `email`, `email_verified` (and `verified`) with `email`.
   */
  async userInfo(caller: BearerCaller): Promise<OAuth2UserInfoResponse> {
    const profile = grantsProfile(caller.scopes);
    if (!profile && !caller.scopes.includes('openid')) {
      throw new ApiError(ErrorCode.MissingOauthScope, undefined, {
        missing_scopes: ['openid'],
      });
    }
    const [user, authTime] = await Promise.all([
      this.users.getProfile(caller.userId),
      this.tokens.authTimeOf(caller.tokenId),
    ]);
    // The grant was revoked since the token was resolved.
    if (!authTime) throw new ApiError(ErrorCode.Unauthorized);
    const claims = oidcUserClaims(user, caller.scopes);
    const out: OAuth2UserInfoResponse = {
      sub: user.id,
      auth_time: Math.floor(authTime.getTime() / 1000),
    };
    if (profile) {
      Object.assign(out, {
        id: user.id,
        username: user.username,
        discriminator: user.discriminator,
        global_name: user.globalName,
        avatar: user.avatar,
        flags: user.flags,
        name: claims.name!,
        preferred_username: claims.preferred_username!,
      });
    }
    if (caller.scopes.includes('email')) {
      out.email = user.email;
      out.verified = user.emailVerified;
      out.email_verified = claims.email_verified;
    }
    return out;
  }
}
