import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import type { AuthKind, ResolvedAuthOptions } from './auth.metadata';
import { BearerGuard } from './bearer.guard';
import type { Caller } from './caller';

const session: Caller = { kind: 'session', userId: '1', sessionId: '2' };
const bot: Caller = { kind: 'bot', userId: '1', applicationId: '3' };
const token = (scopes: string[]): Caller => ({
  kind: 'bearer',
  userId: '1',
  applicationId: '3',
  tokenId: '4',
  scopes,
  expiresAt: new Date(Date.now() + 3_600_000),
});
const route = (kinds: AuthKind[], scopes: string[] = []): ResolvedAuthOptions => ({
  kinds,
  scopes,
  acls: [],
});

/** The error check() throws, or null. */
function refusal(auth: ResolvedAuthOptions, caller: Caller | undefined): ApiError | null {
  try {
    new BearerGuard().check(auth, caller);
    return null;
  } catch (e) {
    return e as ApiError;
  }
}

describe('BearerGuard', () => {
  it('admits a caller of an allowed kind, an OAuth2 token with every scope the route names', () => {
    expect(refusal(route(['user']), session)).toBeNull();
    expect(refusal(route(['user', 'bot']), bot)).toBeNull();
    expect(
      refusal(route(['bearer'], ['identify', 'guilds']), token(['guilds', 'identify'])),
    ).toBeNull();
  });

  it('answers 401 for an anonymous caller and 403 ACCESS_DENIED for another kind', () => {
    expect(refusal(route(['user']), undefined)?.code).toBe(ErrorCode.Unauthorized);
    expect(refusal(route(['user']), bot)?.code).toBe(ErrorCode.AccessDenied);
    const adminKey: Caller = {
      kind: 'admin',
      userId: '1',
      keyId: '2',
      acls: ['*'],
      expiresAt: null,
    };
    expect(refusal(route(['user', 'bot', 'bearer']), adminKey)?.code).toBe(ErrorCode.AccessDenied);
  });

  it('answers 403 MISSING_OAUTH_SCOPE naming the scopes a token lacks', () => {
    const missing = refusal(route(['bearer'], ['identify', 'guilds']), token(['identify']));
    expect([missing?.code, missing?.extra]).toEqual([
      ErrorCode.MissingOauthScope,
      { missing_scopes: ['guilds'] },
    ]);
  });
});
