import type { IncomingHttpHeaders } from 'node:http';

/**
 * What Parley's guards, pipes, filters and handlers use of a request: the part Express's and
 * Fastify's request objects share (each platform fills in `id`: http-platform.ts). No framework
 * type reaches past `common/http/platform/`.
 */
export interface HttpRequest {
  /** The request id (`X-Request-Id`): the client's when sane, else a new UUID. */
  readonly id: string;
  readonly method: string;
  /** The URL as sent (path and query), before any rewrite. */
  readonly originalUrl: string;
  readonly headers: IncomingHttpHeaders;
  /** The client address (after `TRUST_PROXY`); undefined once the socket is gone. */
  readonly ip?: string;
  /** The decoded path parameters of the matched route. */
  readonly params: unknown;
  readonly query: unknown;
  body?: unknown;
}

/**
 * What handlers with `@Res()` use of a response: the methods Express's `Response` and Fastify's
 * `FastifyReply` share, with the same meaning.
 */
export interface HttpResponse {
  status(code: number): this;
  header(name: string, value: string): this;
  /** Sets `Content-Type` (a full media type). */
  type(contentType: string): this;
  /** Sends bytes or text as they are (Content-Type set beforehand); objects go through Nest. */
  send(body: Buffer | string): unknown;
}
