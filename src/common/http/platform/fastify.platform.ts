import { Injectable, type INestApplication, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { AppConfig } from '../../../config/app.config';
import { errorReplyOf, toApiError } from '../../errors/all-exceptions.filter';
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

/**
 * Fastify registers its routes on `ready()`, which `listen()` calls. An app that is only
 * initialised (a test driving `app.getHttpServer()` with supertest) is made ready at the end of
 * `app.init()` here, so callers need no Fastify-only step.
 */
@Injectable()
class FastifyReadyOnBootstrap implements OnApplicationBootstrap {
  constructor(private readonly host: HttpAdapterHost) {}

  async onApplicationBootstrap(): Promise<void> {
    // A CLI application context has no HTTP adapter.
    await this.host.httpAdapter?.getInstance<FastifyInstance>().ready();
  }
}

/** Parley on `@nestjs/platform-fastify` (`HTTP_ADAPTER=fastify`): see HttpPlatform. */
export class FastifyPlatform extends HttpPlatform {
  readonly name = 'fastify';
  private readonly routeWords = new Set<string>();
  /**
   * The route template of each route, kept with the route's policy: Fastify's `routeOptions`
   * getter builds an object of a dozen fields on every access, which cost about a third of a
   * small route's CPU time when read for every log line.
   */
  private readonly templates = new WeakMap<object, string | undefined>();

  createAdapter(config: AppConfig): FastifyAdapter {
    this.configureTrust(config);
    return new FastifyAdapter({
      logger: false,
      trustProxy: trustProxyOf(config.trustProxy),
      genReqId: requestIdOf,
      rewriteUrl: (req: IncomingMessage) => routedUrl(req.url ?? '/'),
      // Draining is GracefulShutdown's job: Fastify must neither answer 503 itself while closing
      // nor cut the connections of requests still in flight when the app closes.
      return503OnClosing: false,
      forceCloseConnections: false,
      // What the router refuses (a malformed percent-escape in the path) gets the envelope too.
      // It runs before the hooks: the request id is echoed here too.
      frameworkErrors: (error: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
        reply.header('X-Request-Id', req.id);
        this.sendError(req, reply, toApiError(error) ?? new ApiError(ErrorCode.BadRequest));
      },
      routerOptions: {
        // `/path/` is `/path`. A parameter is as long as the request line lets it be (Node caps
        // the head at 16 KiB): the route answers, not the router.
        ignoreTrailingSlash: true,
        maxParamLength: 16_384,
      },
    });
  }

  override providers() {
    return [FastifyReadyOnBootstrap];
  }

  install(app: INestApplication, hooks: PlatformHooks): void {
    const fastify = app.getHttpAdapter().getInstance() as FastifyInstance;
    fastify.addHook('onRoute', (route) => addRouteWords(this.routeWords, route.url));
    fastify.addHook('onRequest', (req, reply, done) => {
      reply.header('X-Request-Id', req.id);
      if (tracing.hooks) (req as { traceId?: string }).traceId = tracing.hooks.traceId();
      done();
    });
    const write = requestLineWriter(hooks.log);
    const { observe } = hooks;
    const writeLine = (req: FastifyRequest, reply: FastifyReply): void => {
      const ms = reply.elapsedTime;
      observe?.(this.routeOf(req) ?? 'unmatched', req.method, reply.statusCode, ms / 1000);
      if (write && isLogged(req)) write(req, this.loggedUrlOf(req), reply.statusCode, ms);
    };
    if (write || observe) {
      fastify.addHook('onResponse', (req, reply, done) => {
        writeLine(req, reply);
        done();
      });
    }
    const { drain } = hooks;
    // The one onSend hook (each costs every response: bench/RESULTS.md, 2026-11-25):
    fastify.addHook('onSend', (req, reply, payload, done) => {
      if (reply.getHeader('content-type') === JSON_WITH_CHARSET)
        reply.header('content-type', JSON_TYPE);
      // While shutting down, every response closes its keep-alive connection (graceful-shutdown.ts);
      // a request answered before its body was read (a refused credential, a rate limit) closes
      // its connection too: draining a body nobody wants would cost as much as reading it.
      if (!req.raw.complete) {
        reply.header('Connection', 'close');
        lingerOnClose(req.raw.socket);
      } else if (drain.draining) reply.header('Connection', 'close');
      // A streamed body (an archive download) can be cut by a client that closes its connection
      // once it has Content-Length bytes: the response then never finishes and Fastify runs no
      // onResponse hook, so its line is written on close.
      if (
        (write || observe) &&
        typeof (payload as { pipe?: unknown } | null)?.pipe === 'function'
      ) {
        reply.raw.once('close', () => {
          if (!reply.raw.writableFinished) writeLine(req, reply);
        });
      }
      done(null, payload);
    });
    // Banned clients are refused here, before any body parser or guard runs (ip-ban-gate.ts).
    const gate = hooks.addressGate;
    if (gate) {
      fastify.addHook('onRequest', (req, reply, done) =>
        gate.check(req.ip, (refusal) => (refusal ? this.sendError(req, reply, refusal) : done())),
      );
    }
    // Bodies are read by the BodyReader, the last global guard (body-reader.ts): Fastify's own
    // parsers are replaced by one that takes every content type and reads nothing. A
    // `@RawStream` route (an upload URL's PUT) relies on it: its handler finds `req.raw` unread
    // and pipes it into storage (Fastify's bodyLimit applies only to bodies it reads itself).
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
  }

  sendError(req: unknown, res: unknown, error: ApiError | OAuthError): void {
    const reply = res as FastifyReply;
    if (reply.sent || reply.raw.headersSent) return;
    const { status, headers, body } = errorReplyOf(error, req as FastifyRequest | undefined);
    // Serialised here: Fastify adds `; charset=utf-8` to any JSON type it serialises, and a
    // framework error (frameworkErrors) never reaches the onSend hook that takes it off.
    reply
      .headers(headers)
      .status(status)
      .type(JSON_TYPE)
      .send(Buffer.from(JSON.stringify(body)));
  }

  loggedUrlOf(req: HttpRequest): string {
    return loggedUrlOf(req, this.routeOf(req), this.routeWords);
  }

  /**
   * The matched route's path template, if any — read once per route (keyed by its policy object):
   * Fastify's `routeOptions` getter builds a new object on every access.
   */
  routeOf(req: HttpRequest): string | undefined {
    const policy = (req as { routePolicy?: object }).routePolicy;
    if (!policy) return undefined;
    if (this.templates.has(policy)) return this.templates.get(policy);
    const template = (req as unknown as FastifyRequest).routeOptions?.url;
    this.templates.set(policy, template);
    return template;
  }
}
