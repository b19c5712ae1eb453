export type CredentialScheme = 'session' | 'bearer' | 'bot' | 'admin';

export interface ParsedCredential {
  scheme: CredentialScheme;
  credential: string;
}

// Credentials never contain whitespace; printable ASCII only.
const TOKEN = /^[\x21-\x7e]+$/;
const PREFIXES: Array<[string, CredentialScheme]> = [
  ['Bearer ', 'bearer'],
  ['Bot ', 'bot'],
  ['Admin ', 'admin'],
];

/**
 * Parses the `Authorization` header exactly as ARCHITECTURE.md §4 says:
 * `<token>` (session), `Bearer <token>`, `Bot <token>`, `Admin <key>` (only on routes that take
 * admin keys: `acceptsAdminKeys`, from the route's `@Auth`). Anything else — wrong case, extra or
 * missing spaces, empty values — is anonymous (null).
 */
export function parseAuthorization(
  header: string | string[] | undefined,
  acceptsAdminKeys: boolean,
): ParsedCredential | null {
  if (typeof header !== 'string' || header.length === 0 || header.length > 4096) return null;
  for (const [prefix, scheme] of PREFIXES) {
    if (header.startsWith(prefix)) {
      const credential = header.slice(prefix.length);
      if (!TOKEN.test(credential)) return null;
      if (scheme === 'admin' && !acceptsAdminKeys) return null;
      return { scheme, credential };
    }
  }
  // No prefix: a bare session token. A value with a space is a scheme we do not speak
  // (e.g. "bearer x", "Basic x"), which is anonymous rather than a session token.
  if (!TOKEN.test(header)) return null;
  return { scheme: 'session', credential: header };
}
