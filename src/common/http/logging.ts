import { randomUUID } from 'node:crypto';
import type { LoggerService, LogLevel } from '@nestjs/common';
import type { ParleyRequest } from '../auth/caller';
import type { HttpRequest } from './http-types';
import { discordPrefixOf } from './discord-dialect';
import { ALWAYS_REDACTED_QUERY, type LogRedaction } from './route-policy';
import type { IncomingMessage } from 'node:http';
import pino, { type DestinationStream, type Logger as Pino } from 'pino';
import type { AppConfig } from '../../config/app.config';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Log lines are written in batches of at least this many bytes (about ten request lines)… Larger
 * batches measured slower, not faster: sonic-boom measures the byte length of its pending chunk
 * on every write, so a write costs more the larger a chunk may grow (`maxWrite`, 2× this).
 */
const LOG_BATCH_BYTES = 2 * 1024;
/** …or after this long, whichever comes first (a quiet server's lines still show up at once). */
const LOG_FLUSH_MS = 500;

/**
 * The process's one pino logger, created by main.ts before anything logs (and behind Nest's
 * `Logger` from then on: PinoNestLogger). `LOG_FORMAT=json` (the default off a terminal and in
 * production): JSON lines on stdout, written asynchronously in small batches or every 0.5 s (and
 * flushed on exit), so a request never waits for a write system call. `pretty`: the same lines
 * made human-readable by pino-pretty (loaded only then), written synchronously. Tests pass their
 * own stream.
 */
export function createRootLogger(config: AppConfig, destination?: DestinationStream): Pino {
  return pino(
    {
      level: config.logLevel,
      base: { pid: process.pid },
      // `time` in epoch milliseconds (pino's default): no Date object per line.
    },
    destination ??
      (config.logFormat === 'pretty'
        ? prettyDestination()
        : pino.destination({
            dest: 1,
            sync: false,
            minLength: LOG_BATCH_BYTES,
            maxWrite: 2 * LOG_BATCH_BYTES,
            periodicFlush: LOG_FLUSH_MS,
          })),
  );
}

/**
 * Human-readable lines on stdout (a developer's terminal): every JSON line pino — or the request
 * log (requestLineWriter) — hands it is rewritten by pino-pretty and written at once, so lines
 * come out whole and in order. A request line reads `GET /v1/users/@me 200 1.2 ms`.
 */
function prettyDestination(): DestinationStream {
  // Loaded only here: production (JSON) never loads pino-pretty or its dependencies.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { prettyFactory } = require('pino-pretty') as typeof import('pino-pretty');
  const pretty = prettyFactory({
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,context',
    messageFormat: '{if context}[{context}] {end}{msg}',
    singleLine: true,
  });
  const out = pino.destination({ dest: 1, sync: true });
  return {
    write(chunk: string): void {
      for (const line of chunk.split('\n')) {
        if (line !== '') out.write(pretty(readableFields(line)));
      }
    },
  };
}

/** A log line's fields, the request line's put into its message. */
function readableFields(line: string): unknown {
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (fields.msg !== 'request' || typeof fields.url !== 'string') return fields;
  const { method, url, status, ms, reqId, trace_id, ...rest } = fields;
  return {
    ...rest,
    msg: `${String(method)} ${url} ${String(status)} ${String(ms)} ms`,
    reqId,
    ...(trace_id ? { trace_id } : {}),
  };
}

/**
 * Nest's start-up chatter: a line per module initialised (InstanceLoader), per controller
 * (RoutesResolver) and per route mapped (RouterExplorer) — about two hundred lines at every start,
 * logged at debug instead of info.
 */
const NEST_STARTUP_CONTEXTS: ReadonlySet<string> = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
]);

/**
 * Nest's LoggerService on top of pino (`context` becomes a field). main.ts installs it as Nest's
 * static `Logger` before anything logs, so no line goes through Nest's ConsoleLogger.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pino: Pino) {}

  log(message: unknown, context?: string): void {
    const level = context !== undefined && NEST_STARTUP_CONTEXTS.has(context) ? 'debug' : 'info';
    this.write(level, message, context);
  }
  error(message: unknown, ...rest: unknown[]): void {
    // Nest calls error(message, stack?, context?).
    const context = typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    const stack = typeof rest[0] === 'string' ? rest[0] : undefined;
    this.write('error', message, context, stack);
  }
  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }
  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }
  setLogLevels(_levels: LogLevel[]): void {
    // The level comes from LOG_LEVEL.
  }

  private write(
    level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal',
    message: unknown,
    context?: string,
    stack?: string,
  ): void {
    if (!this.pino.isLevelEnabled(level)) return;
    if (message !== null && typeof message === 'object' && !(message instanceof Error)) {
      this.pino[level]({ context, ...message, ...(stack ? { stack } : {}) });
    } else if (message instanceof Error) {
      this.pino[level]({ context, err: message });
    } else {
      this.pino[level](stack ? { context, stack } : { context }, String(message));
    }
  }
}

/**
 * The request id: `X-Request-Id` when the client (or a proxy) sent a sane one, else a new UUID.
 * Each platform makes it `request.id`.
 */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** Writes the request log line of one request (see requestLineWriter). */
export type RequestLineWriter = (
  req: { readonly id: string; readonly method: string; readonly traceId?: string },
  url: string,
  status: number,
  ms: number,
) => void;

/** Whether a request gets a log line: not on `@NotLogged` routes (the health probes). */
export const isLogged = (req: object): boolean =>
  (req as ParleyRequest).routePolicy?.logged !== false;

/**
 * One log line per request, written by the HTTP platform (common/http/platform) when the response
 * has been sent: request id (echoed back as `X-Request-Id`), method, URL with its secrets redacted
 * (`redactedUrl`), status, time. The line is the JSON a `log.info(fields, 'request')` would write
 * (same fields, same order as pino's own lines: level, time, pid, then the fields, then msg),
 * built here as one string and handed to the logger's own destination: it is the only line every
 * request writes, and pino's generic serializer cost about a third of a small route's CPU time
 * (bench/RESULTS.md, 2026-11-25). Only the URL can hold characters that need escaping; the
 * request id is a checked token or a UUID, the method a token Node's parser accepted. Null when
 * the level leaves request lines out.
 */
export function requestLineWriter(log: Pino): RequestLineWriter | null {
  if (!log.isLevelEnabled('info')) return null;
  const destination = (log as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym];
  const pid = `,"pid":${process.pid},"reqId":"`;
  return (req, url, status, ms) => {
    // 503 is an expected answer (draining, database outage — logged once by its tracker).
    const level = status >= 500 && status !== 503 ? 50 : 30;
    destination.write(
      `{"level":${level},"time":${Date.now()}${pid}${req.id}","method":"${req.method}",` +
        `"url":${JSON.stringify(url)},"status":${status},` +
        (req.traceId ? `"trace_id":"${req.traceId}",` : '') +
        `"ms":${Math.round(ms * 10) / 10},"msg":"request"}\n`,
    );
  };
}

/** What the request log needs of a request: its URL and, once routed, the route's template. */
export interface LoggedRequest {
  /** The URL as sent (path and query), before any rewrite. */
  url: string;
  /** The matched route's path with `:name` parameters. */
  template?: string;
  /** The decoded path parameters of the matched route. */
  params?: unknown;
  /** The matched route's declared credentials (set by the caller guard; absent before it ran). */
  redaction?: LogRedaction;
  /** The static segments of the app's routes (`v1`, `webhooks`, `@me`…), see addRouteWords. */
  routeWords: ReadonlySet<string>;
}

/**
 * Adds the static segments of a route path to `words`. They are the only words a logged path
 * shows outside a route's own template: a credential is never one of them, whatever its alphabet
 * (a handoff code typed in lower case is a lower-case word too).
 */
export function addRouteWords(words: Set<string>, path: string): void {
  for (const segment of path.split('/')) {
    if (segment !== '' && !/[:*{}(]/.test(segment)) words.add(segment);
  }
}

/** An id or a word of the app's routes: what may stand in a logged path besides a template. */
function isPlain(segment: string, words: ReadonlySet<string>): boolean {
  return /^\d{1,20}$/.test(segment) || words.has(segment);
}

/**
 * The URL as the request log shows it, with every credential redacted (ARCHITECTURE.md §3):
 * - a routed request is logged as its route template with the parameter values filled in, except
 *   the parameters the route declares as credentials (`@RedactInLogs`, `@PathCredential`), so
 *   `/v1/%77ebhooks/1/<token>` and `/v1//webhooks/…` are logged, decoded, as the route they
 *   reached; query values are kept except the route's declared ones and ALWAYS_REDACTED_QUERY;
 * - a request refused before its route's policy was known (banned address, unknown route) keeps
 *   only ids and route words of its path, and no query value;
 * - in both, a path value that is neither an id nor a route word is redacted: a client that put a
 *   credential where an id belongs (`/v1/webhooks/<token>`, `/v1/archives/<signature>/download`)
 *   or mistyped the route around it (`/v1/auth/handoff/<code>`) still reaches no log.
 */
export function redactedUrl(req: LoggedRequest): string {
  const q = req.url.indexOf('?');
  const rawPath = q < 0 ? req.url : req.url.slice(0, q);
  const rawQuery = q < 0 ? '' : req.url.slice(q + 1);
  const redaction = req.redaction;
  let path: string;
  if (req.template && redaction) {
    const params = (req.params ?? {}) as Record<string, unknown>;
    path = !req.template.includes(':')
      ? req.template
      : req.template.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
          const value = params[name];
          return redaction.params.includes(name) ||
            typeof value !== 'string' ||
            !isPlain(value, req.routeWords)
            ? '[redacted]'
            : encodeURIComponent(value);
        });
  } else {
    path = rawPath
      .split('/')
      .map((segment) =>
        segment === '' || isPlain(safeDecode(segment), req.routeWords) ? segment : '[redacted]',
      )
      .join('/');
  }
  if (rawQuery === '') return path;
  const query = rawQuery
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const key = eq < 0 ? part : part.slice(0, eq);
      const name = safeDecode(key).toLowerCase();
      const secret =
        !redaction || ALWAYS_REDACTED_QUERY.has(name) || redaction.query.includes(name);
      return secret && eq >= 0 ? `${key}=[redacted]` : part;
    })
    .join('&');
  return `${path}?${query}`;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The logged form of a request (the request log line, the error log): `template` is the matched
 * route's path with `:name` parameters, which the platform reads from its router.
 */
export function loggedUrlOf(
  req: HttpRequest,
  template: string | undefined,
  routeWords: ReadonlySet<string>,
): string {
  const policy = (req as ParleyRequest).routePolicy;
  return redactedUrl({
    url: req.originalUrl,
    template: policy && template ? asSent(req.originalUrl, template) : undefined,
    params: req.params,
    redaction: policy?.redaction,
    routeWords,
  });
}

/**
 * The route template under the prefix the request came in on: a request on Discord's paths
 * (`/api/v10/users/@me`) is logged as such, not as the `/v1` route it was routed to.
 */
function asSent(originalUrl: string, template: string): string {
  const prefix = discordPrefixOf(originalUrl);
  return prefix !== null && template.startsWith('/v1/') ? prefix + template.slice(3) : template;
}
