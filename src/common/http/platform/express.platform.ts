import type { INestApplication } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { AppConfig } from '../../../config/app.config';
import { errorReplyOf } from '../../errors/all-exceptions.filter';
import { ApiError } from '../../errors/api-error';
import { ErrorCode } from '../../errors/error-code';
import type { OAuthError } from '../../errors/oauth-error';
import type { HttpRequest } from '../http-types';
import { lingerOnClose } from '../lingering-close';
import { addRouteWords, isLogged, loggedUrlOf, requestIdOf, requestLineWriter } from '../logging';
import {
  HttpPlatform,
  JSON_TYPE,
  JSON_WITH_CHARSET,
  type PlatformHooks,
  routedUrl,
  trustProxyOf,
} from './http-platform';
import { tracing } from '../../../infra/tracing/trace-hooks';

type ExpressErrorHandler = (err: unknown, req: Request, res: Response, next: NextFunction) => void;

/**
 * Nest's Express adapter, with the errors Express's router raises itself rendered like Fastify's:
 * a path parameter whose percent-escape does not decode is a URIError marked 400.
 */
class ParleyExpressAdapter extends ExpressAdapter {
  override setErrorHandler(handler: ExpressErrorHandler, prefix?: string): void {
    const wrapped: ExpressErrorHandler = (err, req, res, next) =>
      handler(err instanceof URIError ? new ApiError(ErrorCode.BadRequest) : err, req, res, next);
    super.setErrorHandler(wrapped, prefix);
  }
}

/** Unreserved characters (RFC 3986 §2.3) written as percent-escapes: the same path unescaped. */
const ESCAPED_UNRESERVED = /%(4[1-9A-F]|5[0-9A]|6[1-9A-F]|7[0-9A]|3[0-9]|2D|2E|5F|7E)/gi;

/**
 * The path of a URL that holds a percent-escape, as Fastify's router matches it: every escape
 * must decode (else null: a 400), and escaped unreserved characters are the characters themselves
 * (`/v1/%77ebhooks` is `/v1/webhooks`). Escapes of reserved characters (`%2F`) stay escaped.
 */
function normalizedPath(path: string): string | null {
  try {
    decodeURIComponent(path);
  } catch {
    return null;
  }
  return path.replace(ESCAPED_UNRESERVED, (escape) =>
    String.fromCharCode(parseInt(escape.slice(1), 16)),
  );
}

const STARTED = Symbol('parley.started');
type TimedRequest = Request & { id: string; [STARTED]: number };

/** Parley on `@nestjs/platform-express` (the default, `HTTP_ADAPTER=express`): see HttpPlatform. */
export class ExpressPlatform extends HttpPlatform {
  readonly name = 'express';
  private routeWords: Set<string> | null = null;
  private instance!: express.Express;

  createAdapter(config: AppConfig): ExpressAdapter {
    this.configureTrust(config);
    const instance = express();
    // Before the adapter touches the router (its constructor adds a middleware): the router
    // takes these two when it is created. Paths are case-sensitive, and `/path/` is `/path`.
    instance.set('case sensitive routing', true);
    instance.set('strict routing', false);
    instance.set('trust proxy', trustProxyOf(config.trustProxy));
    instance.set('etag', false);
    instance.set('x-powered-by', false);
    this.instance = instance;
    return new ParleyExpressAdapter(instance);
  }

  install(app: INestApplication, hooks: PlatformHooks): void {
    const write = requestLineWriter(hooks.log);
    const { drain, observe } = hooks;
    const gate = hooks.addressGate;
    // One middleware, first in the chain, does what Fastify's hooks do (fastify.platform.ts).
    app.use((req: TimedRequest, res: Response, next: NextFunction) => {
      const id = requestIdOf(req);
      req.id = id;
      if (tracing.hooks) (req as { traceId?: string }).traceId = tracing.hooks.traceId();
      res.setHeader('X-Request-Id', id);
      // While shutting down, every response closes its keep-alive connection (graceful-shutdown.ts);
      // a request answered before its body was read (a refused credential, a rate limit) closes
      // its connection too: draining a body nobody wants would cost as much as reading it.
      const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
      res.writeHead = ((...args: unknown[]) => {
        if (res.getHeader('Content-Type') === JSON_WITH_CHARSET)
          res.setHeader('Content-Type', JSON_TYPE);
        if (!req.complete) {
          res.setHeader('Connection', 'close');
          lingerOnClose(req.socket);
        } else if (drain.draining) res.setHeader('Connection', 'close');
        return writeHead(...args);
      }) as typeof res.writeHead;
      if (write || observe) {
        req[STARTED] = performance.now();
        // `close` follows `finish`, and also ends a response its client cut (a streamed download).
        res.once('close', () => {
          const ms = performance.now() - req[STARTED];
          observe?.(this.routeOf(req) ?? 'unmatched', req.method, res.statusCode, ms / 1000);
          if (write && isLogged(req)) write(req, this.loggedUrlOf(req), res.statusCode, ms);
        });
      }
      const url = req.url;
      if (url.includes('%')) {
        const q = url.indexOf('?');
        const path = normalizedPath(q < 0 ? url : url.slice(0, q));
        if (path === null) return this.sendError(req, res, new ApiError(ErrorCode.BadRequest));
        req.url = q < 0 ? path : path + url.slice(q);
      }
      req.url = routedUrl(req.url);
      // Banned clients are refused here, before any body parser or guard runs (ip-ban-gate.ts).
      if (!gate) return next();
      gate.check(req.ip, (refusal) => (refusal ? this.sendError(req, res, refusal) : next()));
    });
  }

  sendError(req: unknown, res: unknown, error: ApiError | OAuthError): void {
    const response = res as Response;
    if (response.headersSent) return;
    const { status, headers, body } = errorReplyOf(error, req as Request | undefined);
    response.set(headers).status(status).json(body);
  }

  loggedUrlOf(req: HttpRequest): string {
    return loggedUrlOf(req, this.routeOf(req), this.wordsOfRoutes());
  }

  /** The matched route's path template, if any. */
  routeOf(req: HttpRequest): string | undefined {
    const route = (req as unknown as Request).route as { path?: unknown } | undefined;
    return typeof route?.path === 'string' ? route.path : undefined;
  }

  /** The static segments of every route path (addRouteWords), read from the router once. */
  private wordsOfRoutes(): ReadonlySet<string> {
    if (this.routeWords) return this.routeWords;
    const words = new Set<string>();
    const stack = (
      this.instance.router as unknown as { stack: Array<{ route?: { path: unknown } }> }
    ).stack;
    for (const layer of stack) {
      if (typeof layer.route?.path === 'string') addRouteWords(words, layer.route.path);
    }
    // Routes are registered by app.init(), before the first request can arrive.
    if (words.size > 0) this.routeWords = words;
    return words;
  }
}
