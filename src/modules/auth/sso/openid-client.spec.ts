import { createServer } from 'node:net';
import { sha256Base64Url } from '../../../common/crypto/tokens';
import { describeFailure, isUnreachable, openidClient } from './openid-client';

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('openid-client (ESM-only, loaded from CommonJS)', () => {
  it('loads once, through the same promise', async () => {
    const oidc = await openidClient();
    expect(openidClient()).toBe(openidClient());
    const verifier = oidc.randomPKCECodeVerifier();
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // S256 (RFC 7636 §4.2): BASE64URL(SHA-256(verifier)).
    await expect(oidc.calculatePKCECodeChallenge(verifier)).resolves.toBe(
      sha256Base64Url(verifier),
    );
  });

  it('tells an unreachable provider from a refusal', async () => {
    const oidc = await openidClient();
    const issuer = new URL(`http://127.0.0.1:${await closedPort()}`);
    const refusedConnection = await oidc
      .discovery(issuer, 'parley', undefined, undefined, {
        execute: [oidc.allowInsecureRequests],
        timeout: 2,
      })
      .catch((e: unknown) => e);
    expect(isUnreachable(refusedConnection)).toBe(true);
    expect(describeFailure(refusedConnection)).toContain('ECONNREFUSED');

    // Without allowInsecureRequests openid-client refuses http:// before any request.
    const insecure = await oidc.discovery(issuer, 'parley').catch((e: unknown) => e);
    expect(isUnreachable(insecure)).toBe(false);
    expect(describeFailure(insecure)).toContain('only requests to HTTPS are allowed');
  });

  it('counts timeouts as unreachable, and nothing else that carries a code', () => {
    const timeout = Object.assign(new Error('operation timed out'), { code: 'OAUTH_TIMEOUT' });
    expect(isUnreachable(timeout)).toBe(true);
    const refused = Object.assign(new Error('server responded with an error'), {
      code: 'OAUTH_RESPONSE_BODY_ERROR',
      error: 'invalid_grant',
    });
    expect(isUnreachable(refused)).toBe(false);
    expect(describeFailure(refused)).toBe(
      'server responded with an error (OAUTH_RESPONSE_BODY_ERROR) [invalid_grant]',
    );
    const wrongArgument = Object.assign(new TypeError('"server" must be a URL'), {
      code: 'ERR_INVALID_ARG_TYPE',
    });
    expect(isUnreachable(wrongArgument)).toBe(false);
    expect(isUnreachable('fetch failed')).toBe(false);
  });
});
