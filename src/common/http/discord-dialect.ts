import type { ApiError, FieldError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';

/**
 * Discord's path layout as a dialect of the API (README "Pointing a Discord bot at Parley"):
 * `/api/v10/…` and `/api/v9/…` (and `/api/…`, Discord's unversioned form) are routed to the same
 * handlers as `/v1/…`, so a bot library changes only its base URL. What differs is on the wire
 * only: Discord's JSON error body (a numeric `code`, nested form errors) and, on a few routes,
 * Discord's object where the spec's `/v1` contract says something else (the handler asks
 * `isDiscordRequest`). The OpenAPI document describes `/v1`.
 */

/** The first path segments served on Discord's paths: the Discord-compatible routes. */
const DISCORD_ROUTES = new Set([
  'applications',
  'attachments',
  'channels',
  'gateway',
  'guilds',
  'interactions',
  'oauth2',
  'users',
  'webhooks',
]);

const SLASH = 47;

/**
 * The `/v1` URL a Discord path is routed as. A Discord path to anything else (the admin API,
 * `/auth`) stays as it is, which no route matches: 404 in Discord's form.
 */
export function discordRoutedUrl(url: string): string {
  let rest = 5;
  // `/api/v10/`, `/api/v9/`, or no version at all.
  if (url.startsWith('v10/', rest)) rest += 4;
  else if (url.startsWith('v9/', rest)) rest += 3;
  let end = rest;
  while (end < url.length) {
    const c = url.charCodeAt(end);
    if (c === SLASH || c === 63 /* ? */) break;
    end++;
  }
  if (!DISCORD_ROUTES.has(url.slice(rest, end))) return url;
  return `/v1/${url.slice(rest)}`;
}

/** The Discord prefix a URL came in on (`/api/v10`, `/api/v9`, `/api`), or null for any other. */
export function discordPrefixOf(originalUrl: string): string | null {
  if (!originalUrl.startsWith('/api/')) return null;
  if (originalUrl.startsWith('/api/v10/')) return '/api/v10';
  if (originalUrl.startsWith('/api/v9/')) return '/api/v9';
  return '/api';
}

/** Whether a request came in on Discord's paths (its URL as sent, before routing). */
export function isDiscordUrl(originalUrl: string | undefined): boolean {
  return originalUrl !== undefined && originalUrl.startsWith('/api/');
}

/** Whether a handler's request came in on Discord's paths. */
export function isDiscordRequest(req: { originalUrl: string }): boolean {
  return isDiscordUrl(req.originalUrl);
}

/** Discord's JSON error codes for the envelope codes that have one, with Discord's message. */
const DISCORD_CODES: Partial<Record<ErrorCode, [number, string]>> = {
  [ErrorCode.UnknownApplication]: [10002, 'Unknown Application'],
  [ErrorCode.UnknownChannel]: [10003, 'Unknown Channel'],
  [ErrorCode.UnknownGuild]: [10004, 'Unknown Guild'],
  [ErrorCode.UnknownMember]: [10007, 'Unknown Member'],
  [ErrorCode.UnknownMessage]: [10008, 'Unknown Message'],
  [ErrorCode.UnknownRole]: [10011, 'Unknown Role'],
  [ErrorCode.UnknownUser]: [10013, 'Unknown User'],
  [ErrorCode.UnknownEmoji]: [10014, 'Unknown Emoji'],
  [ErrorCode.UnknownWebhook]: [10015, 'Unknown Webhook'],
  [ErrorCode.UnknownSession]: [10020, 'Unknown Session'],
  [ErrorCode.UnknownBan]: [10026, 'Unknown Ban'],
  [ErrorCode.UnknownInteraction]: [10062, 'Unknown interaction'],
  [ErrorCode.InteractionAlreadyAcknowledged]: [40060, 'Interaction has already been acknowledged.'],
  [ErrorCode.UnknownApplicationCommand]: [10063, 'Unknown application command'],
  [ErrorCode.MaxApplicationCommands]: [30032, 'Maximum number of application commands reached'],
  [ErrorCode.MaxDailyApplicationCommandCreates]: [
    30034,
    'Max number of daily application command creates has been reached (200)',
  ],
  [ErrorCode.MaxWebhooksPerChannel]: [30007, 'Maximum number of webhooks reached (15)'],
  [ErrorCode.MaxReactions]: [30010, 'Maximum number of reactions reached (20)'],
  [ErrorCode.MaxGuildRoles]: [30005, 'Maximum number of guild roles reached (250)'],
  [ErrorCode.MaxGuildChannels]: [30013, 'Maximum number of guild channels reached (500)'],
  [ErrorCode.BannedFromGuild]: [40007, 'The user is banned from this guild.'],
  [ErrorCode.PayloadTooLarge]: [40005, 'Request entity too large'],
  [ErrorCode.AccessDenied]: [50001, 'Missing Access'],
  [ErrorCode.CannotEditOthersMessage]: [50005, 'Cannot edit a message authored by another user'],
  [ErrorCode.EmptyMessage]: [50006, 'Cannot send an empty message'],
  [ErrorCode.MaxPinsReached]: [30003, 'Maximum number of pins reached (50)'],
  [ErrorCode.BulkDeleteTooOld]: [
    50034,
    'You can only bulk delete messages that are under 14 days old',
  ],
  [ErrorCode.MissingPermissions]: [50013, 'Missing Permissions'],
  [ErrorCode.InvalidRole]: [50028, 'Invalid Role'],
  [ErrorCode.InvalidToken]: [0, '401: Unauthorized'],
  [ErrorCode.InvalidOauth2AccessToken]: [50025, 'Invalid OAuth2 access token'],
  [ErrorCode.InvalidFormBody]: [50035, 'Invalid Form Body'],
  [ErrorCode.InvalidJson]: [50109, 'The request body contains invalid JSON.'],
};

/** Discord's `{code: 0, message: "404: Not Found"}` form for an error with no code of its own. */
const STATUS_TEXT: Record<number, string> = {
  400: '400: Bad Request',
  401: '401: Unauthorized',
  403: '403: Forbidden',
  404: '404: Not Found',
  405: '405: Method Not Allowed',
  409: '409: Conflict',
  413: '413: Request Entity Too Large',
  415: '415: Unsupported Media Type',
  416: '416: Range Not Satisfiable',
  500: '500: Internal Server Error',
  503: '503: Service Unavailable',
};

/** What Discord's 429 says (discord-api-docs, Rate Limits). */
const RATE_LIMITED = 'You are being rate limited.';

/** `{a: {0: {b: {_errors: [...]}}}}` from `[{path: 'a.0.b', …}]`; `root` errors at the top. */
function nestedErrors(errors: FieldError[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { path, code, message } of errors) {
    let node = out;
    for (const key of path === 'root' ? [] : path.split('.')) {
      node = (node[key] ??= {}) as Record<string, unknown>;
    }
    ((node._errors ??= []) as unknown[]).push({ code, message });
  }
  return out;
}

/**
 * An error as Discord's paths answer it: `{code, message}` with Discord's numeric code (0 and
 * `"<status>: <reason>"` where Discord has none of its own), form errors nested by field, and a
 * 429 as Discord's `{message, retry_after, global}`.
 */
export function discordErrorBody(error: ApiError): Record<string, unknown> {
  const extra = error.extra as { errors?: FieldError[]; retry_after?: number; global?: boolean };
  if (error.code === ErrorCode.RateLimited) {
    return { message: RATE_LIMITED, retry_after: extra.retry_after ?? 1, global: !!extra.global };
  }
  const known = DISCORD_CODES[error.code];
  const body: Record<string, unknown> = known
    ? { code: known[0], message: known[1] }
    : { code: 0, message: STATUS_TEXT[error.status] ?? error.message };
  if (Array.isArray(extra.errors) && extra.errors.length > 0) {
    body.errors = nestedErrors(extra.errors);
  }
  return body;
}
