import { DEFAULT_BUCKETS } from '../src/config/rate-limit.config';
import type { CeilingWork } from './ceiling';
import {
  argon2Work,
  CHATCOMPAT_BODY,
  chatCompatDraft,
  insertWork,
  newAdminKey,
  newOAuthClient,
  newUser,
  seedIpBans,
  newUsers,
  newWebhook,
  PUSH_PAYLOAD,
  pushDraft,
} from './fixtures';

/** What a target's setup hook can reach. */
export interface BenchContext {
  /** Base URL of the Parley server (rate limits off) of this runtime; routes are under /v1. */
  parleyUrl: string;
  /** The database every Parley server of the run uses (setup may seed or read rows). */
  databaseUrl: string;
  /** Concurrency of this run (autocannon connections; ceilings use as many promises). */
  connections: number;
  /** fetch() against the Parley server that throws on an unexpected status and returns the JSON body. */
  call<T = unknown>(
    method: string,
    path: string,
    init?: { headers?: Record<string, string>; body?: unknown; expect?: number },
  ): Promise<T>;
  /** One statement on the bench database. */
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
}

/** The request a target sends, as far as the setup hook may change it. */
export interface BenchRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  /** A JSON-serializable body (sent with content-type application/json) or a raw string. */
  body?: unknown;
  /**
   * Rotate one header over these values, one request after another across all connections
   * (e.g. 1,000 session tokens), so a per-key cache cannot serve everything from one hot entry.
   */
  rotate?: { header: string; values: string[] };
}

interface TargetCommon {
  name: string;
  /** BENCH_ONLY matches a substring of the name or of the group. */
  group?: string;
  /**
   * Name of a row measured in the same run and on the same runtime that this row is compared
   * with ("vs ref"): a ceiling, or the same route with rate limits off; BENCH_ONLY pulls it in.
   */
  reference?: string;
}

/**
 * One HTTP row. `setup` creates what the request needs (a user, a session token, a webhook)
 * through the API and returns the request fields it decides; it runs once per bench run (the
 * database is shared by all runtimes). Every request is sent once before the load to check
 * `expectStatus`; a target whose responses are not all that status — or whose setup throws — is
 * reported as invalid rather than fast.
 */
export interface HttpTarget extends TargetCommon, BenchRequest {
  /**
   * Which server answers: the bare Express baseline, Parley with rate limits off, or Parley with
   * rate limits on (memory storage, every bucket raised so that nothing is refused).
   */
  server:
    | 'bare'
    | 'bare-nest'
    | 'bare-nest-fastify'
    | 'parley'
    | 'parley-fastify'
    | 'parley-rl'
    | 'parley-no-ip-bans';
  /** Status every response must have (default 200). */
  expectStatus?: number;
  setup?: (ctx: BenchContext) => Promise<Partial<BenchRequest>>;
  /** The throughput this row must reach (issue 20's targets), reported as met or missed. */
  goal?: Goal;
}

/** A throughput target: at least `percent` of the reference row (`ref`) or of bare Express. */
export interface Goal {
  of: 'ref' | 'bare';
  /** Per Node major version. */
  percent: Record<20 | 24, number>;
}

/**
 * A ceiling measured without HTTP, by bench/ceiling.ts in its own process on the runtime of the
 * table it is in, while the servers are idle: `concurrency` promises each repeat the work for
 * the same warm-up + duration as the HTTP rows.
 */
export interface CeilingTarget extends TargetCommon {
  server: 'ceiling';
  /** Concurrent promises (default: the run's connections). */
  concurrency?: number;
  setup: (ctx: BenchContext) => Promise<CeilingWork>;
}

export type BenchTarget = HttpTarget | CeilingTarget;

/** The baseline row: every other row is reported as a percentage of it. */
export const BASELINE = 'bare Express 5 JSON route';
/** An empty NestJS app on Express: the floor of Parley on Express (the default adapter). */
export const BARE_NEST = 'bare NestJS 11 JSON route (Express adapter, empty app)';
/** The same empty app on the Fastify adapter: the floor of Parley with HTTP_ADAPTER=fastify. */
export const BARE_NEST_FASTIFY = 'bare NestJS 11 JSON route (Fastify adapter, empty app)';

/**
 * RATE_LIMIT_OVERRIDES for the rate-limits-on server: every bucket (the app refuses unknown
 * names) at a limit no run reaches, so the limiter does all its work and never answers 429.
 */
export const UNREACHABLE_LIMITS = Object.keys(DEFAULT_BUCKETS)
  .map((bucket) => `${bucket}=1000000000/1s`)
  .join(',');

const DISCOVERY = 'GET /v1/.well-known/service';
const ME = 'GET /v1/users/@me (1 session)';
const ME_1000 = 'GET /v1/users/@me (1,000 sessions round-robin)';
const INTROSPECT = 'POST /v1/oauth2/introspect (Basic)';
const CHATCOMPAT = 'POST /v1/webhooks/:id/:token/chatcompat';
const ARGON2 = 'argon2id verify, raw (app hash)';
const INSERT_CHAT = 'INSERT message, raw pg.Pool (chatcompat row)';
const INSERT_PUSH = 'INSERT message, raw pg.Pool (push row)';

/** Sessions the round-robin @me row rotates over. */
export const SESSIONS = 1000;

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** The name of a row measured on both adapters, for its Express (default) variant. */
const onExpress = (name: string) => `${name} [Express]`;

/**
 * A Parley row measured on each adapter: `[Express]` on the default server and `[Fastify]` on
 * one with HTTP_ADAPTER=fastify, each compared ("vs ref") with the empty Nest app on its adapter.
 */
function onBothAdapters(row: Omit<HttpTarget, 'server' | 'reference'>): HttpTarget[] {
  return [
    { ...row, name: onExpress(row.name), server: 'parley', reference: BARE_NEST },
    {
      ...row,
      name: `${row.name} [Fastify]`,
      group: `${row.group ?? ''} fastify`.trim(),
      server: 'parley-fastify',
      reference: BARE_NEST_FASTIFY,
    },
  ];
}

export const TARGETS: BenchTarget[] = [
  { name: BASELINE, server: 'bare', method: 'GET', path: '/ping' },
  { name: BARE_NEST, group: 'discovery', server: 'bare-nest', method: 'GET', path: '/ping' },
  {
    name: BARE_NEST_FASTIFY,
    group: 'discovery accounts',
    server: 'bare-nest-fastify',
    method: 'GET',
    path: '/ping',
  },
  ...onBothAdapters({
    name: DISCOVERY,
    group: 'discovery',
    method: 'GET',
    path: '/v1/.well-known/service',
    goal: { of: 'ref', percent: { 20: 60, 24: 60 } },
  }),
  {
    name: `${DISCOVERY}, rate limits on`,
    group: 'discovery ratelimit',
    reference: onExpress(DISCOVERY),
    server: 'parley-rl',
    method: 'GET',
    path: '/v1/.well-known/service',
  },

  // Authenticated reads: one hot session, then 1,000 sessions of 1,000 users in turn.
  ...onBothAdapters({
    name: ME,
    group: 'accounts',
    method: 'GET',
    path: '/v1/users/@me',
    goal: { of: 'ref', percent: { 20: 50, 24: 50 } },
    setup: async (ctx) => {
      // The IP ban check (on in every Parley row) looks at a non-empty ban list.
      await seedIpBans(ctx);
      return { headers: { authorization: (await newUser(ctx)).token } };
    },
  }),
  // Discord's path layout: the same route through the dialect (issue 28: within 3 % of /v1).
  ...(['Express', 'Fastify'] as const).map((adapter): BenchTarget => ({
    name: `GET /api/v10/users/@me (1 session) [${adapter}]`,
    group: adapter === 'Express' ? 'accounts discord' : 'accounts fastify discord',
    reference: `${ME} [${adapter}]`,
    server: adapter === 'Express' ? 'parley' : 'parley-fastify',
    method: 'GET',
    path: '/api/v10/users/@me',
    goal: { of: 'ref', percent: { 20: 97, 24: 97 } },
    setup: async (ctx) => ({ headers: { authorization: (await newUser(ctx)).token } }),
  })),
  {
    name: `${ME}, IP ban check off`,
    group: 'accounts bans',
    reference: onExpress(ME),
    server: 'parley-no-ip-bans',
    method: 'GET',
    path: '/v1/users/@me',
    setup: async (ctx) => {
      await seedIpBans(ctx);
      return { headers: { authorization: (await newUser(ctx)).token } };
    },
  },
  {
    name: 'GET /v1/admin/api-keys (admin key)',
    group: 'admin',
    reference: BARE_NEST,
    server: 'parley',
    method: 'GET',
    path: '/v1/admin/api-keys',
    setup: async (ctx) => ({ headers: { authorization: `Admin ${(await newAdminKey(ctx)).key}` } }),
  },
  ...onBothAdapters({
    name: ME_1000,
    group: 'accounts',
    method: 'GET',
    path: '/v1/users/@me',
    goal: { of: 'ref', percent: { 20: 50, 24: 50 } },
    setup: async (ctx) => ({
      rotate: {
        header: 'authorization',
        values: (await newUsers(ctx, SESSIONS)).map((u) => u.token),
      },
    }),
  }),
  {
    name: `${ME}, rate limits on`,
    group: 'accounts ratelimit',
    reference: onExpress(ME),
    server: 'parley-rl',
    method: 'GET',
    path: '/v1/users/@me',
    setup: async (ctx) => ({ headers: { authorization: (await newUser(ctx)).token } }),
  },

  // OAuth2: the resource-server hot paths of an integrator.
  ...onBothAdapters({
    name: INTROSPECT,
    group: 'oauth2',
    method: 'POST',
    path: '/v1/oauth2/introspect',
    setup: async (ctx) => {
      const client = await newOAuthClient(ctx);
      return {
        headers: { authorization: basic(client.clientId, client.clientSecret) },
        body: { token: client.accessToken },
      };
    },
  }),
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

  // Webhooks: execute against the database ceiling, a plain INSERT of the same message row.
  {
    name: INSERT_CHAT,
    group: 'webhooks',
    server: 'ceiling',
    setup: (ctx) => insertWork(ctx, chatCompatDraft()),
  },
  ...onBothAdapters({
    name: CHATCOMPAT,
    group: 'webhooks',
    method: 'POST',
    path: '(set by setup)',
    goal: { of: 'bare', percent: { 20: 40, 24: 25 } },
    setup: async (ctx) => {
      const hook = await newWebhook(ctx);
      return { path: `/v1/webhooks/${hook.id}/${hook.token}/chatcompat`, body: CHATCOMPAT_BODY };
    },
  }),
  {
    name: `${CHATCOMPAT}, rate limits on`,
    group: 'webhooks ratelimit',
    reference: onExpress(CHATCOMPAT),
    server: 'parley-rl',
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
    server: 'ceiling',
    setup: (ctx) => insertWork(ctx, pushDraft()),
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

  // Login is argon2-bound by design; the point is that it reaches the raw verify rate (the
  // thread pool works in parallel, the event loop does not serialize logins). Last, because a
  // queue of logins keeps the server busy after the load stops.
  { name: ARGON2, group: 'accounts login', server: 'ceiling', setup: argon2Work },
  {
    // What a login rate would be if verifications were serialized (one at a time).
    name: 'argon2id verify, raw, one at a time',
    group: 'accounts login',
    server: 'ceiling',
    concurrency: 1,
    setup: argon2Work,
  },
  {
    name: 'POST /v1/auth/login',
    group: 'accounts login',
    reference: ARGON2,
    server: 'parley',
    method: 'POST',
    path: '/v1/auth/login',
    setup: async (ctx) => {
      const user = await newUser(ctx);
      return { body: { email: user.email, password: user.password } };
    },
  },
];
