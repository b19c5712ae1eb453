import type { NestExpressApplication } from '@nestjs/platform-express';
import {
  argon2VerifyOp,
  CHATCOMPAT_BODY,
  chatCompatDraft,
  insertMessageOp,
  newOAuthClient,
  newUser,
  newWebhook,
  PUSH_PAYLOAD,
  pushDraft,
} from './fixtures';

/** What a target's setup hook can reach: the servers started for this run. */
export interface BenchContext {
  /** Base URL of the bare Express baseline, e.g. http://127.0.0.1:40123 */
  bareUrl: string;
  /** Base URL of the Parley app (routes are under /v1). */
  parleyUrl: string;
  /** The Parley app itself (e.g. `app.get(DataSource)` to seed rows directly). */
  app: NestExpressApplication;
  /** Concurrency of this run (autocannon connections; in-process rows use as many promises). */
  connections: number;
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

interface TargetCommon {
  name: string;
  /** BENCH_ONLY matches a substring of the name or of the group. */
  group?: string;
  /**
   * Name of a ceiling row measured in the same run that this row is compared with (shown as
   * "vs ceiling"); BENCH_ONLY pulls it in whenever this row is selected.
   */
  reference?: string;
}

/**
 * One HTTP row. To add one, append to TARGETS: give a `setup` that creates what the request needs
 * (a user, a session token, a webhook) through the API or the DataSource and returns the request
 * fields it decides (headers, path, body). Every request is sent once before the load to check
 * `expectStatus`; a target whose responses are not all that status — or whose setup throws — is
 * reported as invalid rather than fast.
 */
export interface HttpTarget extends TargetCommon, BenchRequest {
  /** Which server answers: the bare Express baseline or Parley. */
  server: 'bare' | 'parley';
  /** Status every response must have (default 200). */
  expectStatus?: number;
  /** Runs once after the servers start, before the warm-up. */
  setup?: (ctx: BenchContext) => Promise<Partial<BenchRequest>>;
}

/** An operation the in-process runner repeats; `close` runs after the measurement. */
export interface InProcessOp {
  op: () => Promise<void>;
  close?: () => Promise<void>;
  /** Shown under the table (e.g. the parameters actually used). */
  note?: string;
}

/**
 * A ceiling measured without HTTP, in this process, while the servers are idle: `connections`
 * concurrent promises each repeat `op` for the same warm-up + duration as the HTTP rows. Its rate
 * is what the HTTP rows referring to it could reach if the stack in front cost nothing.
 */
export interface InProcessTarget extends TargetCommon {
  server: 'in-process';
  /** Concurrent promises (default: the run's connections). */
  concurrency?: number;
  setup: (ctx: BenchContext) => Promise<InProcessOp>;
}

export type BenchTarget = HttpTarget | InProcessTarget;

/** The baseline row: every other row is reported as a percentage of it. */
export const BASELINE = 'bare Express 5 JSON route';

const ARGON2 = 'argon2id verify, raw (m=19456 t=2 p=1)';
const INSERT_CHAT = 'INSERT message, raw pg.Pool (chatcompat row)';
const INSERT_PUSH = 'INSERT message, raw pg.Pool (push row)';

export const TARGETS: BenchTarget[] = [
  { name: BASELINE, server: 'bare', method: 'GET', path: '/ping' },
  {
    name: 'GET /v1/.well-known/service',
    server: 'parley',
    method: 'GET',
    path: '/v1/.well-known/service',
  },

  // Accounts: login is argon2-bound by design; the point is that it reaches the raw verify rate
  // (the thread pool works in parallel, the event loop does not serialize logins).
  { name: ARGON2, group: 'accounts', server: 'in-process', setup: argon2VerifyOp },
  {
    // What a login rate would be if verifications were serialized (one at a time).
    name: 'argon2id verify, raw, one at a time',
    group: 'accounts',
    server: 'in-process',
    concurrency: 1,
    setup: argon2VerifyOp,
  },
  {
    name: 'POST /v1/auth/login',
    group: 'accounts',
    reference: ARGON2,
    server: 'parley',
    method: 'POST',
    path: '/v1/auth/login',
    setup: async (ctx) => {
      const user = await newUser(ctx);
      return { body: { email: user.email, password: user.password } };
    },
  },
  {
    name: 'GET /v1/users/@me (session)',
    group: 'accounts',
    server: 'parley',
    method: 'GET',
    path: '/v1/users/@me',
    setup: async (ctx) => ({ headers: { authorization: (await newUser(ctx)).token } }),
  },

  // Webhooks: execute against the database ceiling, a plain INSERT of the same message row.
  {
    name: INSERT_CHAT,
    group: 'webhooks',
    server: 'in-process',
    setup: (ctx) => insertMessageOp(ctx, chatCompatDraft()),
  },
  {
    name: 'POST /v1/webhooks/:id/:token/chatcompat',
    group: 'webhooks',
    reference: INSERT_CHAT,
    server: 'parley',
    method: 'POST',
    path: '(set by setup)',
    setup: async (ctx) => {
      const hook = await newWebhook(ctx);
      return { path: `/v1/webhooks/${hook.id}/${hook.token}/chatcompat`, body: CHATCOMPAT_BODY };
    },
  },
  {
    name: INSERT_PUSH,
    group: 'webhooks',
    server: 'in-process',
    setup: (ctx) => insertMessageOp(ctx, pushDraft()),
  },
  {
    name: 'POST /v1/webhooks/:id/:token/repohost (push)',
    group: 'webhooks',
    reference: INSERT_PUSH,
    server: 'parley',
    method: 'POST',
    path: '(set by setup)',
    expectStatus: 204,
    setup: async (ctx) => {
      const hook = await newWebhook(ctx);
      return {
        path: `/v1/webhooks/${hook.id}/${hook.token}/repohost`,
        headers: { 'x-github-event': 'push' },
        body: PUSH_PAYLOAD,
      };
    },
  },

  // OAuth2: the resource-server hot paths of an integrator.
  {
    name: 'POST /v1/oauth2/introspect',
    group: 'oauth2',
    server: 'parley',
    method: 'POST',
    path: '/v1/oauth2/introspect',
    setup: async (ctx) => {
      const client = await newOAuthClient(ctx);
      return {
        body: {
          token: client.accessToken,
          client_id: client.clientId,
          client_secret: client.clientSecret,
        },
      };
    },
  },
  {
    name: 'GET /v1/oauth2/@me (bearer)',
    group: 'oauth2',
    server: 'parley',
    method: 'GET',
    path: '/v1/oauth2/@me',
    setup: async (ctx) => ({
      headers: { authorization: `Bearer ${(await newOAuthClient(ctx)).accessToken}` },
    }),
  },
];
