import { OAuthError } from '../../common/errors/oauth-error';

export const WWW_AUTHENTICATE = { 'WWW-Authenticate': 'Basic realm="parley"' };

export interface PresentedClient {
  clientId: string;
  clientSecret: string;
  method: 'client_secret_basic' | 'client_secret_post';
}

export const invalidClient = (description = 'Client authentication failed.') =>
  new OAuthError('invalid_client', description, 401, WWW_AUTHENTICATE);

// RFC 6749 §2.3.1 / Appendix B: both parts are application/x-www-form-urlencoded before
// base64, so `+` is a space and `%XX` a byte of UTF-8.
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

/** Decodes `Basic <base64(urlencode(id):urlencode(secret))>`; throws invalid_client when malformed. */
export function parseBasicCredentials(header: string): { clientId: string; clientSecret: string } {
  const m = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header.trim());
  if (!m) throw invalidClient('Malformed Basic credentials.');
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidClient('Malformed Basic credentials.');
  try {
    return {
      clientId: formDecode(decoded.slice(0, colon)),
      clientSecret: formDecode(decoded.slice(colon + 1)),
    };
  } catch {
    throw invalidClient('Malformed Basic credentials.');
  }
}

/**
 * The client credentials of a token/introspection/revocation request: HTTP Basic or the body's
 * client_id/client_secret, never both (RFC 6749 §2.3: one method per request).
 */
export function presentedClient(
  authorization: string | undefined,
  params: Record<string, string | undefined>,
): PresentedClient {
  const basic = authorization && /^basic /i.test(authorization) ? authorization : undefined;
  if (basic) {
    const creds = parseBasicCredentials(basic);
    if (params.client_secret !== undefined) {
      throw new OAuthError(
        'invalid_request',
        'Use exactly one client authentication method (Basic or body credentials).',
      );
    }
    if (params.client_id !== undefined && params.client_id !== creds.clientId) {
      throw new OAuthError('invalid_request', 'client_id does not match the Basic credentials.');
    }
    return { ...creds, method: 'client_secret_basic' };
  }
  if (params.client_id !== undefined && params.client_secret !== undefined) {
    return {
      clientId: params.client_id,
      clientSecret: params.client_secret,
      method: 'client_secret_post',
    };
  }
  throw invalidClient('Client authentication is required.');
}

/**
 * Reads an OAuth request body (form or JSON) as string parameters. Repeated or non-string
 * parameters are an invalid_request (RFC 6749 §3.1: parameters must not repeat).
 */
export function readParams(body: unknown): Record<string, string | undefined> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new OAuthError('invalid_request', 'The request body must be a form or a JSON object.');
  }
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (v === undefined || v === null) continue;
    if (typeof v === 'number' && Number.isSafeInteger(v)) out[k] = String(v);
    else if (typeof v === 'string') out[k] = v;
    else throw new OAuthError('invalid_request', `Parameter "${k}" must be a single string.`);
    if (out[k] === '') out[k] = undefined;
  }
  return out;
}
