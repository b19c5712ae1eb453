import type * as OpenIdClient from 'openid-client';

export type OpenIdClientModule = typeof OpenIdClient;

let loading: Promise<OpenIdClientModule> | undefined;

/**
 * openid-client (v6, the certified relying party), loaded on first use: only SSO requests need
 * it. It and its dependencies (oauth4webapi, jose 6) are ESM-only. TypeScript compiles this
 * `import()` to `require()`, and Node ≥ 20.19 (and 24) `require()` an ES module that has no
 * top-level await, which these have. Jest's module loader cannot on Node 20: jest.config.js
 * compiles the three packages to CommonJS for the tests.
 */
export function openidClient(): Promise<OpenIdClientModule> {
  return (loading ??= import('openid-client'));
}

/** The fields of an openid-client failure (read by name: under Jest it may come from another realm). */
interface Failure {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  /** The OAuth error the provider answered (`invalid_grant`). */
  error?: unknown;
  cause?: unknown;
}

const isFailure = (value: unknown): value is Failure =>
  typeof value === 'object' && value !== null && typeof (value as Failure).message === 'string';

/**
 * Whether an openid-client failure means the provider could not be reached (connection refused,
 * DNS, timeout), as opposed to an answer that was refused. `fetch` rejects with a TypeError
 * without a code (openid-client's own TypeErrors, wrong arguments, carry one); openid-client
 * passes it through, or wraps it in a ClientError without a code when its `instanceof` does not
 * recognise it (an error of another realm, as in Jest's sandbox). Timeouts carry OAUTH_TIMEOUT.
 */
export function isUnreachable(error: unknown): boolean {
  if (!isFailure(error)) return false;
  const { name, code, cause } = error;
  if (code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT') return true;
  if (code !== undefined) return false;
  if (name === 'TypeError' || name === 'TimeoutError' || name === 'AbortError') return true;
  return name === 'ClientError' && isUnreachable(cause);
}

/**
 * A one-line reason for the log: the message, its code, the OAuth error the provider answered,
 * then the same for each cause (`fetch failed: connect ECONNREFUSED …`). Only messages and codes:
 * never the response bodies or claims that openid-client attaches.
 */
export function describeFailure(error: unknown): string {
  if (!isFailure(error)) return String(error);
  const { message, code, error: oauthError, cause } = error;
  return [
    message,
    typeof code === 'string' ? ` (${code})` : '',
    typeof oauthError === 'string' ? ` [${oauthError}]` : '',
    isFailure(cause) ? `: ${describeFailure(cause)}` : '',
  ].join('');
}
