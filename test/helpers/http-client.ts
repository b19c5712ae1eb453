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
