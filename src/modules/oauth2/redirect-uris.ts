import type { FieldError } from '../../common/errors/api-error';
import { FieldErrorCode } from '../../common/errors/field-error-code';

export const MAX_REDIRECT_URIS = 10;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why a redirect URI is not acceptable, or null when it is. */
export function redirectUriProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0) return 'must be a non-empty string';
  if (value.length > 2048) return 'must be at most 2048 characters';
  if (value.includes('#')) return 'must not contain a fragment';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'must use https (http only for localhost, 127.0.0.1 or [::1])';
}

/** Validates a redirect URI list; errors carry paths like `redirect_uris.0`. */
export function redirectUriErrors(list: unknown): FieldError[] {
  if (list === null || list === undefined) return [];
  if (!Array.isArray(list)) {
    return [
      { path: 'redirect_uris', code: FieldErrorCode.BaseTypeArray, message: 'must be an array' },
    ];
  }
  if (list.length > MAX_REDIRECT_URIS) {
    return [
      {
        path: 'redirect_uris',
        code: FieldErrorCode.BaseTypeMaxLength,
        message: `must contain at most ${MAX_REDIRECT_URIS} URIs`,
      },
    ];
  }
  const errors: FieldError[] = [];
  list.forEach((v, i) => {
    const problem = redirectUriProblem(v);
    if (problem) {
      errors.push({
        path: `redirect_uris.${i}`,
        code: FieldErrorCode.RedirectUriInvalid,
        message: `Redirect URI ${problem}.`,
      });
    }
  });
  return errors;
}
