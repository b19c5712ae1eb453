import type { INestApplication, Provider } from '@nestjs/common';
import type { AbstractHttpAdapter } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';
import type { Logger as Pino } from 'pino';
import type { AppConfig } from '../../../config/app.config';
import type { ApiError } from '../../errors/api-error';
import type { OAuthError } from '../../errors/oauth-error';
import type { DrainState } from '../../lifecycle/drain-state';
import type { HttpRequest } from '../http-types';
import { discordRoutedUrl } from '../discord-dialect';

/** `HTTP_ADAPTER`: the Nest HTTP adapter Parley runs on. */
export type HttpAdapterName = 'express' | 'fastify';

/** The IP ban check of every request, run before routing (modules/bans/ip-ban-gate.ts). */
export interface AddressGate {
  /** Calls `done()` to let the request on, or `done(refusal)` to answer it with that error. */
  check(ip: string | undefined, done: (refusal?: ApiError) => void): void;
}

/** Told of every response sent: route template ("unmatched" when none), method, status, duration. */
export type RequestObserver = (
  route: string,
  method: string,
  status: number,
  seconds: number,
) => void;

/** What a platform's hooks need from the app. */
export interface PlatformHooks {
  log: Pino;
  drain: DrainState;
  /** Null when `IP_BANS=off`. */
  addressGate: AddressGate | null;
  /** The request metrics; null when they are off (no METRICS_PORT). */
  observe: RequestObserver | null;
}

/**
 * Everything that differs between Express and Fastify, in one place (ARCHITECTURE.md §3): this
 * folder is the only one that imports either framework. Both platforms give clients the same
 * answers (test/http-parity.e2e-spec.ts):
 *
 * - JSON answered as `application/json` without a charset (JSON_TYPE);
 * - creating the Nest adapter and its options: trust proxy (`TRUST_PROXY`), `/path/` matched as
 *   `/path`, case-sensitive paths, no ETag or `X-Powered-By`, no body parsing (bodies are read
 *   by the BodyReader guard after the credential and rate-limit checks);
 * - the hooks that run before routing, in this order: request id (`X-Request-Id`), the request
 *   log, `Connection: close` on responses sent while draining or before the body was read, the
 *   root-level discovery aliases, and the IP ban gate;
 * - framework errors (a malformed percent-escape, an unknown route) rendered as the envelope;
 * - writing an error envelope (`sendError`) and the logged form of a URL (`loggedUrlOf`), which
 *   needs the matched route's template from the router.
 *
 * Guards, pipes, filters and handlers see `HttpRequest`/`HttpResponse` (http-types.ts), never a
 * framework type; the Node `http.Server` both adapters expose (`app.getHttpServer()`) is where
 * anything else (the gateway's WebSocket upgrade) attaches.
 */
export abstract class HttpPlatform {
  abstract readonly name: HttpAdapterName;

  /** The Nest adapter, configured (called once, before the Nest application exists). */
  abstract createAdapter(config: AppConfig): AbstractHttpAdapter;

  /** Providers the platform adds to the application module. */
  providers(): Provider[] {
    return [];
  }

  /** Installs the pre-routing hooks (called once, before `app.init()`). */
  abstract install(app: INestApplication, hooks: PlatformHooks): void;

  /**
   * Answers with `error`'s envelope (errorReplyOf) on the framework's response object, unless a
   * response has already begun (a stream that failed midway): then nothing more is written.
   */
  abstract sendError(req: unknown, res: unknown, error: ApiError | OAuthError): void;

  /** The URL as the logs show it, every credential redacted (logging.ts redactedUrl). */
  abstract loggedUrlOf(req: HttpRequest): string;

  /** The matched route's path template (`/v1/users/:id`), undefined before routing or when none matched. */
  abstract routeOf(req: HttpRequest): string | undefined;

  private trust: ((addr: string, i: number) => boolean) | null = null;

  /** Called by `createAdapter`: which hops of X-Forwarded-For to believe (`TRUST_PROXY`). */
  protected configureTrust(config: AppConfig): void {
    const trust = trustProxyOf(config.trustProxy);
    this.trust =
      trust === false
        ? null
        : trust === true
          ? () => true
          : typeof trust === 'number'
            ? (_addr, i) => i < trust
            : proxyaddr.compile(trust.split(',').map((t) => t.trim()));
  }

  /**
   * The client's address for a request the framework never sees (the gateway's WebSocket
   * upgrade), by the same rule as the frameworks' `req.ip`: the peer, or with `TRUST_PROXY` the
   * first X-Forwarded-For hop not trusted (both frameworks use proxy-addr with this setting).
   */
  clientAddressOf(req: IncomingMessage): string {
    const peer = req.socket.remoteAddress ?? 'unknown';
    return this.trust ? proxyaddr(req, this.trust) : peer;
  }
}

/**
 * JSON bodies go out as `application/json`, exactly: RFC 8259 defines no charset parameter (JSON
 * is UTF-8), and discord.py parses a body as JSON only when the type is exactly this. Both
 * frameworks add `; charset=utf-8` to what they serialise; the platforms take it off.
 */
export const JSON_TYPE = 'application/json';
export const JSON_WITH_CHARSET = 'application/json; charset=utf-8';

/** Root-level aliases of /v1 routes (the discovery documents live at the host's root too). */
const ROOT_ALIASES = new Set([
  '/.well-known/service',
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
]);

/**
 * The URL a request is routed as: a root-level alias goes to its /v1 route, and so does a
 * Discord path (`/api/v10/…`, discord-dialect.ts).
 */
export function routedUrl(url: string): string {
  const second = url.charCodeAt(1);
  if (second === 97 /* 'a' */) return url.startsWith('/api/') ? discordRoutedUrl(url) : url;
  if (second !== 46 /* '.' */) return url;
  const q = url.indexOf('?');
  return ROOT_ALIASES.has(q < 0 ? url : url.slice(0, q)) ? `/v1${url}` : url;
}

/** `TRUST_PROXY` in the proxy-addr syntax both frameworks take: on/true, a hop count, or a list. */
export function trustProxyOf(value: string | false): boolean | number | string {
  if (!value) return false;
  if (value === 'on' || value === 'true') return true;
  return /^\d+$/.test(value) ? Number(value) : value;
}
