import { Injectable } from '@nestjs/common';
import type { ParsedCredential } from '../../common/auth/authorization-header';
import type { Caller } from '../../common/auth/caller';
import { CredentialResolvers } from '../../common/auth/credential-resolvers';
import type { SessionIdentity } from './gateway-session';

/**
 * Who an identify or resume token is: a bot token (bare or `Bot `-prefixed) or a user session
 * token, resolved by the same resolvers (and cache) as the `Authorization` header.
 */
@Injectable()
export class GatewayAuthenticator {
  constructor(private readonly resolvers: CredentialResolvers) {}

  async authenticate(token: string): Promise<SessionIdentity | null> {
    const candidates: ParsedCredential[] = token.startsWith('Bot ')
      ? [{ scheme: 'bot', credential: token.slice(4) }]
      : [
          { scheme: 'bot', credential: token },
          { scheme: 'session', credential: token },
        ];
    for (const credential of candidates) {
      if (!/^[\x21-\x7e]+$/.test(credential.credential)) continue;
      const caller = await this.resolvers.resolveDetached(credential);
      if (caller && (caller.kind === 'bot' || caller.kind === 'session')) {
        return {
          userId: caller.userId,
          bot: caller.kind === 'bot',
          applicationId: caller.kind === 'bot' ? caller.applicationId : null,
          credential,
          tags: tagsOf(caller),
        };
      }
    }
    return null;
  }

  /** Whether `identity`'s credential still holds (re-resolved, the cache entry dropped first). */
  async stillValid(identity: SessionIdentity, tag?: string): Promise<boolean> {
    if (tag) this.resolvers.cache.invalidate(tag);
    const caller = await this.resolvers.resolveDetached(identity.credential);
    return caller !== null && caller.userId === identity.userId;
  }
}

/** The change tags of a gateway caller (as CredentialResolvers tags the cached caller). */
function tagsOf(caller: Caller): string[] {
  switch (caller.kind) {
    case 'session':
      return [`s:${caller.sessionId}`, `u:${caller.userId}`];
    case 'bot':
      return [`a:${caller.applicationId}`, `u:${caller.userId}`];
    default:
      return [`u:${caller.userId}`];
  }
}
