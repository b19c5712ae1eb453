import { ApiError } from './api-error';
import { ErrorCode } from './error-code';

/** What a 503 for an unreachable database tells clients to wait (integer seconds). */
export const DATABASE_RETRY_AFTER_S = 2;

// Socket-level failures: the server is down, restarting, unreachable or dropped the connection.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// SQLSTATEs of a server that is going away or cannot take us: admin shutdown, crash shutdown,
// cannot connect now (starting up / shutting down / recovery), too many connections. Class 08
// (connection exception) is matched as a class.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

// What pg and pg-pool say when a connection dies or cannot be had (they carry no code).
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/i, // "…unexpectedly", "…due to connection timeout"
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error and is not queryable/i,
  /Client was closed and is not queryable/i,
  /Cannot use a pool after calling end on the pool/i,
];

/**
 * Whether an error means "PostgreSQL cannot be reached right now" rather than "this statement
 * failed": checks the error (pg-pool's connect failures reach us unwrapped), TypeORM's
 * `driverError` and an AggregateError's `errors` (Node's happy-eyeballs connect). `cause` is not
 * followed: pg never sets it, while `fetch` does (an unreachable SSO issuer is not an outage).
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const e = error as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    errors?: unknown;
  };
  if (typeof e.code === 'string') {
    if (NETWORK_CODES.has(e.code) || UNAVAILABLE_SQLSTATES.has(e.code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(e.code)) return true;
  }
  if (
    typeof e.message === 'string' &&
    UNAVAILABLE_MESSAGES.some((re) => re.test(e.message as string))
  )
    return true;
  if (e.driverError && isDatabaseUnavailable(e.driverError, depth + 1)) return true;
  if (Array.isArray(e.errors)) return e.errors.some((x) => isDatabaseUnavailable(x, depth + 1));
  return false;
}

/** A short, secret-free description of such an error for the log (code and message). */
export function describeDatabaseError(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; driverError?: unknown };
  const inner = e?.driverError && typeof e.driverError === 'object' ? e.driverError : e;
  const { code, message } = inner as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message ? message : String(error);
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}

/** The answer while the database is unreachable: 503 with Retry-After, in the envelope. */
export function databaseUnavailableError(): ApiError {
  return new ApiError(
    ErrorCode.ServiceUnavailable,
    'The database is unavailable. Retry shortly.',
    { retry_after: DATABASE_RETRY_AFTER_S },
    { 'Retry-After': String(DATABASE_RETRY_AFTER_S) },
  );
}
