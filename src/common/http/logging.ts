import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { AppConfig } from '../../config/app.config';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Structured JSON logs: one line per request (pino-http), a request id per request (taken from
 * `X-Request-Id` when sane, echoed back), and secrets redacted.
 */
export function loggerParams(config: AppConfig): Params {
  return {
    pinoHttp: {
      level: config.logLevel,
      genReqId: (req: IncomingMessage, res: ServerResponse) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
          '*.password',
          '*.token',
          '*.client_secret',
        ],
        censor: '[redacted]',
      },
      // Keep the per-request line small: method, url, status, time.
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({
          id: req.id,
          method: req.method,
          url: redactUrl(req.url),
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) =>
        err || res.statusCode >= 500 ? 'error' : 'info',
      autoLogging: { ignore: (req: IncomingMessage) => (req.url ?? '').startsWith('/v1/health/') },
    },
  };
}

// Some URLs carry secrets by design: webhook tokens and handoff codes in the path, tickets and
// tokens in the query. None of them may reach the logs.
export function redactUrl(url: string): string {
  return url
    .replace(/^(\/v1\/webhooks\/[^/?]+\/)[^/?]+/, '$1[redacted]')
    .replace(/^(\/v1\/auth\/handoff\/)(?!initiate|complete)[^/?]+/, '$1[redacted]')
    .replace(/([?&](?:ticket|token|code|state)=)[^&#]*/gi, '$1[redacted]');
}
