import { Injectable, OnModuleInit } from '@nestjs/common';
import { hash } from 'node:crypto';
import { Authenticator } from 'passport';
import { Strategy as CustomStrategy } from 'passport-custom';
import { TaggedCache } from '../cache/tagged-cache';
import { Metrics } from '../../infra/metrics/metrics';
import { DatabaseNotifications } from '../../database/notifications';
import type { CredentialScheme, ParsedCredential } from './authorization-header';
import type { Caller, ParleyRequest } from './caller';

/**
 * Looks up one kind of credential. The auth, OAuth2 and admin modules each register theirs
 * (`resolvers.register('session', this)`), which makes it a Passport strategy of that name, so
 * the guards never know how a credential is stored. Return null for unknown, expired or revoked
 * credentials: the request is then anonymous.
 */
export interface CredentialResolver {
  resolve(credential: string, req: ParleyRequest): Promise<Caller | null>;
  /** Called when a cached caller of this kind is used (e.g. to bump "last used"). */
  used?(caller: Caller): void;
}

const PRESENTED = Symbol('parley.presentedCredential');
interface Presented {
  [PRESENTED]?: ParsedCredential;
}

const CACHE_ENTRIES = 100_000;
const CACHE_TTL_MS = 5 * 60_000;

const SCHEME_OF: Record<Caller['kind'], CredentialScheme> = {
  session: 'session',
  bearer: 'bearer',
  bot: 'bot',
  admin: 'admin',
};

/**
 * Authentication through Passport: one `passport-custom` strategy per credential kind
 * (`session`, `bearer`, `bot`, `admin`), each the module's resolver, on this app's own Passport
 * instance (two apps in one process never share strategies). In front of Passport sits a bounded
 * cache of resolved callers, dropped on every instance at once by database triggers (see the
 * CredentialInvalidation migration), so a request costs one indexed lookup or a cache hit.
 */
@Injectable()
export class CredentialResolvers implements OnModuleInit {
  private readonly passport = new Authenticator();
  private readonly resolvers = new Map<CredentialScheme, CredentialResolver>();
  /** Resolved callers by `<scheme>:<SHA-256 of the credential>`; unknown credentials are never cached. */
  readonly cache = new TaggedCache<Caller>(CACHE_ENTRIES, CACHE_TTL_MS);

  constructor(
    private readonly notifications: DatabaseNotifications,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.notifications.invalidateOnChange(this.cache);
  }

  /** Makes `resolver` the Passport strategy named after its scheme. */
  register(scheme: CredentialScheme, resolver: CredentialResolver): void {
    if (this.resolvers.has(scheme))
      throw new Error(`a resolver for "${scheme}" is already registered`);
    this.resolvers.set(scheme, resolver);
    this.passport.use(
      scheme,
      new CustomStrategy((req, done) => {
        const parsed = (req as unknown as Presented)[PRESENTED];
        if (!parsed || parsed.scheme !== scheme) return done(null, false);
        this.lookup(scheme, parsed.credential, req as unknown as ParleyRequest).then(
          (caller) => done(null, caller ?? false),
          (err: unknown) => done(err),
        );
      }),
    );
  }

  /** Whether this instance holds the credential in its cache (for tests and diagnostics). */
  isCached(scheme: CredentialScheme, credential: string): boolean {
    return this.cache.get(cacheKey(scheme, credential)) !== undefined;
  }

  /**
   * The caller a credential stands for: from the cache when possible, otherwise through the
   * scheme's Passport strategy (one indexed lookup). Null = anonymous.
   */
  async resolve(parsed: ParsedCredential, req: ParleyRequest): Promise<Caller | null> {
    const { scheme, credential } = parsed;
    if (!this.resolvers.has(scheme)) return null;
    const key = cacheKey(scheme, credential);
    const hit = this.cache.get(key);
    this.metrics.credentialCache(hit !== undefined);
    if (hit) {
      this.resolvers.get(SCHEME_OF[hit.kind])?.used?.(hit);
      return hit;
    }
    const generation = this.cache.currentGeneration;
    // The strategy reads the credential the caller guard parsed (the route decides whether an
    // admin key may be presented at all), not the header again.
    (req as unknown as Presented)[PRESENTED] = parsed;
    const caller = await new Promise<Caller | null>((resolve, reject) => {
      const authenticate = this.passport.authenticate(
        scheme,
        { session: false },
        (err: Error | null, user: Caller | false) => (err ? reject(err) : resolve(user || null)),
      ) as (req: ParleyRequest, res: object, next: (err?: Error) => void) => void;
      // With a callback, Passport never touches the response.
      authenticate(req, {}, (err) => reject(err ?? new Error('passport: unexpected next()')));
    });
    if (caller) {
      const expiresAt =
        (caller.kind === 'bearer' || caller.kind === 'admin') && caller.expiresAt
          ? caller.expiresAt.getTime()
          : Infinity;
      this.cache.set(key, caller, tagsOf(caller), generation, Date.now(), expiresAt);
    }
    return caller;
  }

  /**
   * A credential presented elsewhere than in the request's `Authorization` header — an OAuth2
   * access token in a request body (`guilds.join`) — resolved and cached the same way.
   */
  resolveDetached(parsed: ParsedCredential): Promise<Caller | null> {
    return this.resolve(parsed, {} as ParleyRequest);
  }

  private async lookup(
    scheme: CredentialScheme,
    credential: string,
    req: ParleyRequest,
  ): Promise<Caller | null> {
    const caller = (await this.resolvers.get(scheme)?.resolve(credential, req)) ?? null;
    // `Bearer <token>` falls back to a session token (ARCHITECTURE.md §4).
    if (!caller && scheme === 'bearer') {
      return (await this.resolvers.get('session')?.resolve(credential, req)) ?? null;
    }
    return caller;
  }
}

const cacheKey = (scheme: CredentialScheme, credential: string) =>
  `${scheme}:${hash('sha256', credential, 'base64')}`;

/** What a credential change announces (see the CredentialInvalidation migration's triggers). */
function tagsOf(caller: Caller): string[] {
  switch (caller.kind) {
    case 'session':
      return [`s:${caller.sessionId}`, `u:${caller.userId}`];
    case 'bearer':
      return [`b:${caller.tokenId}`, `u:${caller.userId}`, `a:${caller.applicationId}`];
    case 'bot':
      return [`a:${caller.applicationId}`, `u:${caller.userId}`];
    case 'admin':
      return [`k:${caller.keyId}`, `u:${caller.userId}`];
  }
}
