import { randomUUID } from 'node:crypto';
import type { LoggerService, LogLevel } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import pino, { type DestinationStream, type Logger as Pino } from 'pino';
import type { AppConfig } from '../../config/app.config';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

declare module 'http' {
  interface IncomingMessage {
    /** The request id (X-Request-Id), set by requestLogger. */
    id?: string;
  }
}

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
 * One log line per request, written when the response finishes: request id (taken from
 * `X-Request-Id` when sane, echoed back), method, URL with its secrets redacted, status, time.
 * Nothing is allocated for the line when the level is off; no per-request child logger.
 */
export function requestLogger(log: Pino) {
  const enabled = log.isLevelEnabled('info');
  return (req: Request, res: Response, next: NextFunction): void => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    if (enabled && !req.url.startsWith('/v1/health/')) {
      const start = performance.now();
      res.once('finish', () => {
        const status = res.statusCode;
        const line = {
          reqId: id,
          method: req.method,
          url: redactUrl(req.originalUrl),
          status,
          ms: Math.round((performance.now() - start) * 10) / 10,
        };
        // 503 is an expected answer (draining, database outage — logged once by its tracker).
        if (status >= 500 && status !== 503) log.error(line, 'request');
        else log.info(line, 'request');
      });
    }
    next();
  };
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
