import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface TestOidcProvider {
  issuer: string;
  stop(): Promise<void>;
}

/**
 * Starts the real OpenID Provider of `oidc-provider.mjs` (oidc-provider, ESM-only) in a child
 * process on a loopback port, with one client `parley` whose redirect URI is `redirectUri`.
 */
export async function startOidcProvider(
  redirectUri: string,
  clientSecret: string,
): Promise<TestOidcProvider> {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(__dirname, 'oidc-provider.mjs'), redirectUri, clientSecret],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const lines = createInterface({ input: child.stdout! });
  const first = await Promise.race([
    once(lines, 'line').then(([line]) => line as string),
    once(child, 'exit').then(() => {
      throw new Error(`the OpenID provider exited: ${stderr}`);
    }),
  ]);
  const { issuer } = JSON.parse(first) as { issuer: string };
  return {
    issuer,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/**
 * A browser following redirects from the authorization URL (keeping cookies), until the
 * provider sends it to `redirectUri`: what arrives there. `login_hint` picks the test account.
 */
export async function signInAtProvider(
  authorizationUrl: string,
  redirectUri: string,
  loginHint: string,
): Promise<URLSearchParams> {
  const jar = new Map<string, string>();
  const start = new URL(authorizationUrl);
  start.searchParams.set('login_hint', loginHint);
  let url = start.href;
  for (let hop = 0; hop < 10; hop++) {
    const res = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const cookie of res.headers.getSetCookie()) {
      const pair = cookie.split(';')[0];
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`sign-in stopped at ${url}: ${res.status} ${await res.text()}`);
    const next = new URL(location, url);
    if (next.href.startsWith(redirectUri)) return next.searchParams;
    url = next.href;
  }
  throw new Error('too many redirects at the provider');
}
