import type { NestExpressApplication } from '@nestjs/platform-express';

/** What a target's setup hook can reach: the servers started for this run. */
export interface BenchContext {
  /** Base URL of the bare Express baseline, e.g. http://127.0.0.1:40123 */
  bareUrl: string;
  /** Base URL of the Parley app (routes are under /v1). */
  parleyUrl: string;
  /** The Parley app itself (e.g. `app.get(DataSource)` to seed rows directly). */
  app: NestExpressApplication;
  /** fetch() against the Parley app that throws on an unexpected status and returns the JSON body. */
  call<T = unknown>(
    method: string,
    path: string,
    init?: { headers?: Record<string, string>; body?: unknown; expect?: number },
  ): Promise<T>;
}

/** The request a target sends, as far as the setup hook may change it. */
export interface BenchRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  /** A JSON-serializable body (sent with content-type application/json) or a raw string. */
  body?: unknown;
}

/**
 * One benchmark row. To add one (login, GET /users/@me, webhook execute, OAuth2 introspection…),
 * append to TARGETS: give a `setup` that creates what the request needs (a user, a session token,
 * a webhook) through the API or the DataSource and returns the request fields it decides (headers,
 * path, body). Every request is sent once before the load to check `expectStatus`; a target whose
 * responses are not all that status is reported as invalid rather than fast.
 */
export interface BenchTarget extends BenchRequest {
  name: string;
  /** Which server answers: the bare Express baseline or Parley. */
  server: 'bare' | 'parley';
  /** Status every response must have (default 200). */
  expectStatus?: number;
  /** Runs once after the servers start, before the warm-up. */
  setup?: (ctx: BenchContext) => Promise<Partial<BenchRequest>>;
}

/** The baseline row: every other row is reported as a percentage of it. */
export const BASELINE = 'bare Express 5 JSON route';

export const TARGETS: BenchTarget[] = [
  { name: BASELINE, server: 'bare', method: 'GET', path: '/ping' },
  {
    name: 'GET /v1/.well-known/service',
    server: 'parley',
    method: 'GET',
    path: '/v1/.well-known/service',
  },
  // Next rows, once their modules land (sketch):
  // {
  //   name: 'GET /v1/users/@me (session)', server: 'parley', method: 'GET', path: '/v1/users/@me',
  //   setup: async (ctx) => {
  //     const { token } = await ctx.call<{ token: string }>('POST', '/v1/auth/register', { body: {...}, expect: 201 });
  //     return { headers: { authorization: token } };
  //   },
  // },
];
