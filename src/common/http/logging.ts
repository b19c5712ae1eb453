import { randomUUID } from 'node:crypto';
import type { LoggerService, LogLevel } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import pino, { type DestinationStream, type Logger as Pino } from 'pino';
import type { AppConfig } from '../../config/app.config';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The process's one pino logger: JSON lines on stdout, written asynchronously in 4 KiB batches
 * (flushed on exit) so a request never waits for a write system call. Tests pass their own stream.
 */
export function createRootLogger(config: AppConfig, destination?: DestinationStream): Pino {
  return pino(
    {
      level: config.logLevel,
      base: { pid: process.pid },
      // `time` in epoch milliseconds (pino's default): no Date object per line.
    },
    destination ?? pino.destination({ dest: 1, sync: false, minLength: 4096 }),
  );
}

/** Nest's LoggerService on top of pino (`context` becomes a field). */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pino: Pino) {}

  log(message: unknown, context?: string): void {
    this.write('info', message, context);
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
 * Fastify's `genReqId`, so it is `request.id` everywhere.
 */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * One log line per request, written when the response has been sent: request id (echoed back
 * as `X-Request-Id`), method, URL with its secrets redacted, status, time. Nothing is allocated
 * for the line when the level is off; no per-request child logger.
 */
export function registerRequestLogging(app: FastifyInstance, log: Pino): void {
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('X-Request-Id', req.id);
    done();
  });
  if (!log.isLevelEnabled('info')) return;
  app.addHook('onResponse', (req, reply, done) => {
    if (!req.url.startsWith('/v1/health/')) {
      const status = reply.statusCode;
      const line = {
        reqId: req.id,
        method: req.method,
        url: redactUrl(req.originalUrl),
        status,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      };
      // 503 is an expected answer (draining, database outage — logged once by its tracker).
      if (status >= 500 && status !== 503) log.error(line, 'request');
      else log.info(line, 'request');
    }
    done();
  });
}

// Some URLs carry secrets by design: webhook tokens and handoff codes in the path, tickets and
// tokens in the query. None of them may reach the logs.
const MAY_HOLD_SECRET = /\/webhooks\/|\/handoff\/|[?&](?:ticket|token|code|state)=/i;

export function redactUrl(url: string): string {
  if (!MAY_HOLD_SECRET.test(url)) return url;
  return url
    .replace(/^(\/v1\/webhooks\/[^/?]+\/)[^/?]+/, '$1[redacted]')
    .replace(/^(\/v1\/auth\/handoff\/)(?!initiate|complete)[^/?]+/, '$1[redacted]')
    .replace(/([?&](?:ticket|token|code|state)=)[^&#]*/gi, '$1[redacted]');
}
