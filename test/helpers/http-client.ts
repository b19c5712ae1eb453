import { request as httpRequest, type Agent, type IncomingHttpHeaders } from 'node:http';

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body when it is JSON, else undefined. */
  json: any;
}

export interface RequestOptions {
  port: number;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** A keep-alive agent, or false for a connection of its own. */
  agent?: Agent | false;
  timeoutMs?: number;
}

/**
 * One HTTP request over a real socket (supertest opens a connection per request and cannot
 * share keep-alive agents). Rejects on a socket error (ECONNRESET, "socket hang up", ECONNREFUSED)
 * — the failures the shutdown and outage tests look for — or after `timeoutMs`.
 */
export function send(options: RequestOptions): Promise<Reply> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: options.port,
        method: options.method ?? 'GET',
        path: options.path,
        agent: options.agent ?? false,
        headers: {
          ...(payload === undefined
            ? {}
            : {
                'Content-Type': 'application/json',
                'Content-Length': String(Buffer.byteLength(payload)),
              }),
          ...options.headers,
        },
      },
      (res) => collect(res, resolve, reject),
    );
    req.setTimeout(options.timeoutMs ?? 30_000, () =>
      req.destroy(new Error(`timeout: ${options.method ?? 'GET'} ${options.path}`)),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export function collect(
  res: import('node:http').IncomingMessage,
  resolve: (r: Reply) => void,
  reject: (e: Error) => void,
): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('error', reject);
  res.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
  });
}

/** A short description of a request failure for an assertion message. */
export function describeFailure(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return e.code ? `${e.code} (${e.message})` : String(e.message ?? err);
}

export interface PartialBodyOptions {
  port: number;
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** The Content-Length announced. */
  declaredLength: number;
  /** The only part of the body sent (far less than declaredLength). */
  firstChunk: Buffer | string;
  /** How long to wait for an answer while the rest of the body is withheld. */
  timeoutMs?: number;
}

/**
 * Announces a large body, sends only its first chunk and waits for the answer: it resolves only
 * if the server answered without the rest, i.e. before reading the body (a server that reads
 * the body first would wait for bytes that never come). Rejects after `timeoutMs` otherwise.
 */
export function sendWithheldBody(options: PartialBodyOptions): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port: options.port,
      method: options.method,
      path: options.path,
      agent: false,
      headers: {
        'Content-Type': 'application/json',
        ...options.headers,
        'Content-Length': String(options.declaredLength),
      },
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer without the body: ${options.method} ${options.path}`));
    }, options.timeoutMs ?? 3_000);
    req.on('response', (res) =>
      collect(
        res,
        (reply) => {
          clearTimeout(timer);
          req.destroy();
          resolve(reply);
        },
        reject,
      ),
    );
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.write(options.firstChunk);
  });
}
