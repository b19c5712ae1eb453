import { Injectable } from '@nestjs/common';
import type { Caller } from './caller';
import type { CredentialScheme } from './authorization-header';
import type { ParleyRequest } from './caller';

/**
 * Looks up one kind of credential. The auth, OAuth2 and admin modules each register theirs
 * (`resolvers.register('session', this)`) so the guards never know how a credential is stored.
 * Return null for unknown, expired or revoked credentials: the request is then anonymous.
 */
export interface CredentialResolver {
  resolve(credential: string, req: ParleyRequest): Promise<Caller | null>;
}

@Injectable()
export class CredentialResolvers {
  private readonly resolvers = new Map<CredentialScheme, CredentialResolver>();

  register(scheme: CredentialScheme, resolver: CredentialResolver): void {
    if (this.resolvers.has(scheme))
      throw new Error(`a resolver for "${scheme}" is already registered`);
    this.resolvers.set(scheme, resolver);
  }

  async resolve(
    scheme: CredentialScheme,
    credential: string,
    req: ParleyRequest,
  ): Promise<Caller | null> {
    const caller = (await this.resolvers.get(scheme)?.resolve(credential, req)) ?? null;
    // `Bearer <token>` falls back to a session token (DESIGN.md §3).
    if (!caller && scheme === 'bearer') {
      return (await this.resolvers.get('session')?.resolve(credential, req)) ?? null;
    }
    return caller;
  }
}
