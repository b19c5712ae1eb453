import definitions from '@octokit/webhooks-examples';
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { ParleyApp } from '../src/app.setup';
import { DrainState } from '../src/common/lifecycle/drain-state';
import { createTestApp, http, RELAXED_LIMITS } from './helpers/app';
import { registerUser } from './helpers/factories';
import { createGuild, createWebhook, type TestWebhook } from './helpers/guild-factories';

/**
 * Express (the default) and Fastify (`HTTP_ADAPTER=fastify`) answer the same edge requests the
 * same way: status, envelope code, and the headers a client or a proxy acts on. One fixed list of
 * requests goes to an app on each adapter; each answer is also checked against what it must be,
 * so two adapters that agree on a wrong answer still fail.
 */

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

interface Raw {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

function raw(port: number, r: Raw): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = r.body === undefined ? undefined : Buffer.from(r.body);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: r.method ?? 'GET',
        path: r.path,
        agent: false,
        headers: {
          ...(body ? { 'Content-Length': String(body.length) } : {}),
          ...r.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error(`timeout: ${r.method} ${r.path}`)));
    // The server may answer and close before the whole body is sent (a refused credential): the
    // answer must still arrive, so a write error alone does not fail the request.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') reject(err);
    });
    req.end(body);
  });
}

/** The headers compared across adapters (absent ones too: neither may send an ETag). */
const COMPARED = [
  'content-type',
  'connection',
  'cache-control',
  'www-authenticate',
  'retry-after',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-bucket',
  'x-ratelimit-global',
  'access-control-allow-origin',
  'etag',
  'x-powered-by',
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What must agree: status, envelope code (or RFC 6749 `error`), chosen headers, empty bodies. */
function comparable(a: Answer): {
  status: number;
  code: unknown;
  requestId: unknown;
  headers: Record<string, unknown>;
} {
  let code: unknown = null;
  try {
    const json = JSON.parse(a.body.toString('utf8')) as { code?: unknown; error?: unknown };
    code = json.code ?? json.error ?? null;
  } catch {
    code = a.body.length === 0 ? '(empty)' : '(not JSON)';
  }
  const requestId = a.headers['x-request-id'];
  const remaining = a.headers['x-ratelimit-remaining'];
  return {
    status: a.status,
    code,
    requestId: typeof requestId === 'string' && UUID.test(requestId) ? '(uuid)' : requestId,
    headers: {
      ...Object.fromEntries(COMPARED.map((h) => [h, a.headers[h]])),
      // What is left of a 1-second bucket depends on when the request came: only 0 is compared.
      'x-ratelimit-remaining': remaining === undefined || remaining === '0' ? remaining : '(some)',
    },
  };
}

interface Fixture {
  port: number;
  token: string;
  hook: TestWebhook;
}

const SECRET = 'parity-signing-secret-0123456789';
const PUSH = JSON.stringify(
  definitions.find((d) => d.name === 'push')?.examples.find((e) => 'commits' in e),
  null,
  3, // not the canonical form: the signature holds over the bytes as sent
);
const signature = (body: string) =>
  `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

type Case = [
  name: string,
  send: (f: Fixture) => Promise<Answer>,
  expected: { status: number; code?: unknown; headers?: Record<string, unknown> },
];

const guildBody = (name: string) => JSON.stringify({ name });

/** `POST /v1/guilds` (a guild when the body is right) as the fixture's user, unless headers say otherwise. */
const postGuild = (f: Fixture, body: Buffer | string, headers: Record<string, string>) =>
  raw(f.port, {
    method: 'POST',
    path: '/v1/guilds',
    headers: { Authorization: f.token, ...headers },
    body,
  });
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

const CASES: Case[] = [
  [
    'an unknown route',
    (f) => raw(f.port, { path: '/v1/no-such-route' }),
    { status: 404, code: 'NOT_FOUND' },
  ],
  [
    'a malformed percent-escape in a route parameter',
    (f) => raw(f.port, { path: '/v1/webhooks/1/%E0%A4%A' }),
    { status: 400, code: 'BAD_REQUEST' },
  ],
  [
    'a malformed percent-escape in an unknown path',
    (f) => raw(f.port, { path: '/v1/nothing/%zz' }),
    { status: 400, code: 'BAD_REQUEST' },
  ],
  [
    'escaped unreserved characters (the same path)',
    (f) => raw(f.port, { path: '/v1/%75sers/@me' }),
    { status: 401, code: 'UNAUTHORIZED' },
  ],
  [
    'a trailing slash',
    (f) => raw(f.port, { path: '/v1/users/@me/', headers: { Authorization: f.token } }),
    { status: 200, code: null },
  ],
  [
    'an upper-case path',
    (f) => raw(f.port, { path: '/V1/users/@me' }),
    { status: 404, code: 'NOT_FOUND' },
  ],
  [
    'HEAD of a GET route',
    (f) =>
      raw(f.port, { method: 'HEAD', path: '/v1/users/@me', headers: { Authorization: f.token } }),
    { status: 200, code: '(empty)' },
  ],
  [
    'a CORS preflight',
    (f) =>
      raw(f.port, {
        method: 'OPTIONS',
        path: '/v1/users/@me',
        headers: { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'GET' },
      }),
    { status: 404, code: 'NOT_FOUND' },
  ],
  [
    'the discovery document from another origin, at the host root',
    (f) =>
      raw(f.port, {
        path: '/.well-known/service',
        headers: { Origin: 'https://elsewhere.example' },
      }),
    { status: 200, headers: { 'access-control-allow-origin': '*' } },
  ],
  [
    'a JSON body',
    (f) => postGuild(f, guildBody('parity json'), { 'Content-Type': 'application/json' }),
    { status: 201, code: null },
  ],
  [
    'a form body',
    (f) =>
      postGuild(f, 'name=parity+form', { 'Content-Type': 'application/x-www-form-urlencoded' }),
    { status: 201, code: null },
  ],
  [
    'a gzip JSON body',
    (f) =>
      postGuild(f, gzipSync(guildBody('parity gzip')), {
        'Content-Type': 'application/json',
        'Content-Encoding': 'gzip',
      }),
    { status: 201, code: null },
  ],
  [
    'a body of a content type no parser takes',
    (f) => postGuild(f, guildBody('parity text'), { 'Content-Type': 'text/plain' }),
    { status: 400, code: 'INVALID_FORM_BODY' },
  ],
  [
    'JSON that does not parse',
    (f) => postGuild(f, '{"name":', { 'Content-Type': 'application/json' }),
    { status: 400, code: 'INVALID_JSON' },
  ],
  [
    'a deeply nested body',
    (f) => postGuild(f, `{"name":${nested(100)}}`, { 'Content-Type': 'application/json' }),
    { status: 400 },
  ],
  [
    'a body over the size limit',
    (f) =>
      postGuild(f, JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }), {
        'Content-Type': 'application/json',
      }),
    { status: 413, code: 'PAYLOAD_TOO_LARGE' },
  ],
  [
    'invalid UTF-8 in a JSON body',
    (f) =>
      postGuild(
        f,
        Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
        { 'Content-Type': 'application/json; charset=utf-8' },
      ),
    { status: 400 },
  ],
  [
    'a refused credential with an unread body (the connection closes)',
    (f) =>
      postGuild(f, guildBody('x'.repeat(64 * 1024)), {
        Authorization: 'not-a-token',
        'Content-Type': 'application/json',
      }),
    { status: 401, code: 'UNAUTHORIZED', headers: { connection: 'close' } },
  ],
  [
    'a refused credential with a large body still being sent (a lingering close: the answer arrives)',
    (f) =>
      raw(f.port, {
        method: 'POST',
        path: `/v1/webhooks/${f.hook.id}/${'D'.repeat(68)}/repohost`,
        headers: { 'Content-Type': 'application/json', 'X-GitHub-Event': 'push' },
        body: Buffer.alloc(16 * 1024 * 1024, 0x20),
      }),
    { status: 404, code: 'UNKNOWN_WEBHOOK', headers: { connection: 'close' } },
  ],
  [
    'a signed delivery, verified over its raw bytes',
    (f) =>
      raw(f.port, {
        method: 'POST',
        path: `/v1/webhooks/${f.hook.id}/${f.hook.token}/repohost`,
        headers: {
          'Content-Type': 'application/json',
          'X-GitHub-Event': 'push',
          'X-Hub-Signature-256': signature(PUSH),
        },
        body: PUSH,
      }),
    { status: 204, code: '(empty)' },
  ],
  [
    'a signed delivery whose bytes changed',
    (f) =>
      raw(f.port, {
        method: 'POST',
        path: `/v1/webhooks/${f.hook.id}/${f.hook.token}/repohost`,
        headers: {
          'Content-Type': 'application/json',
          'X-GitHub-Event': 'push',
          'X-Hub-Signature-256': signature(PUSH),
        },
        body: JSON.stringify(JSON.parse(PUSH)),
      }),
    { status: 401 },
  ],
  [
    'a rate limit reached (the bucket allows 4 a minute)',
    async (f) => {
      for (let i = 0; i < 3; i++) await raw(f.port, { path: '/v1/.well-known/service' });
      return raw(f.port, { path: '/v1/.well-known/service' });
    },
    { status: 429, code: 'RATE_LIMITED', headers: { 'x-ratelimit-bucket': 'discovery' } },
  ],
  [
    "the client's request id, echoed",
    (f) => raw(f.port, { path: '/v1/health/live', headers: { 'X-Request-Id': 'parity-1.a_b' } }),
    { status: 200 },
  ],
  [
    'a request id that is not a token, replaced',
    (f) => raw(f.port, { path: '/v1/health/live', headers: { 'X-Request-Id': 'no spaces!' } }),
    { status: 200 },
  ],
];

describe('HTTP adapter parity (Express and Fastify)', () => {
  const apps: ParleyApp[] = [];
  const fixtures: Record<'express' | 'fastify', Fixture> = {} as never;

  beforeAll(async () => {
    for (const adapter of ['express', 'fastify'] as const) {
      const app = await createTestApp({
        env: {
          HTTP_ADAPTER: adapter,
          // The discovery bucket: once before the 429 case, then four times in it.
          RATE_LIMIT_OVERRIDES: `${RELAXED_LIMITS},discovery=4/60s`,
        },
      });
      apps.push(app);
      await app.listen(0, '127.0.0.1');
      const user = await registerUser(app);
      const guild = await createGuild(app, user.token);
      const hook = await createWebhook(app, user.token, guild.channelId, 'Parity');
      const secret = await http(app)
        .patch(`/v1/webhooks/${hook.id}`)
        .set('Authorization', user.token)
        .send({ signing_secret: SECRET });
      expect(secret.status).toBe(200);
      const port = (app.getHttpServer().address() as AddressInfo).port;
      fixtures[adapter] = { port, token: user.token, hook };
    }
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it('runs each app on the adapter it was asked for', () => {
    expect(apps.map((a) => a.getHttpAdapter().getType())).toEqual(['express', 'fastify']);
  });

  // In order: the rate-limit case counts the discovery requests before it.
  it.each(CASES)('answers %s alike', async (_name, send, expected) => {
    const express = comparable(await send(fixtures.express));
    const fastify = comparable(await send(fixtures.fastify));
    expect(express).toEqual(fastify);
    expect(express.status).toBe(expected.status);
    if ('code' in expected) expect(express.code).toBe(expected.code);
    expect(express.headers).toMatchObject(expected.headers ?? {});
    expect(express.headers.etag).toBeUndefined();
    expect(express.headers['x-powered-by']).toBeUndefined();
  });

  it('echoes a sane request id and replaces any other', async () => {
    for (const f of Object.values(fixtures)) {
      const given = await raw(f.port, {
        path: '/v1/health/live',
        headers: { 'X-Request-Id': 'r-1' },
      });
      expect(given.headers['x-request-id']).toBe('r-1');
      const replaced = await raw(f.port, {
        path: '/v1/health/live',
        headers: { 'X-Request-Id': 'a b' },
      });
      expect(replaced.headers['x-request-id']).toMatch(UUID);
    }
  });

  it('closes keep-alive connections while draining (last: the apps drain from here on)', async () => {
    const before = await Promise.all(
      Object.values(fixtures).map((f) =>
        raw(f.port, { path: '/v1/health/live', headers: { Connection: 'keep-alive' } }),
      ),
    );
    expect(before.map((a) => a.headers.connection)).toEqual(['keep-alive', 'keep-alive']);
    for (const app of apps) app.get(DrainState).start();
    const during = await Promise.all(
      Object.values(fixtures).map((f) =>
        raw(f.port, { path: '/v1/health/ready', headers: { Connection: 'keep-alive' } }),
      ),
    );
    expect(during.map(comparable)).toEqual([
      {
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        requestId: '(uuid)',
        headers: expect.objectContaining({ connection: 'close' }),
      },
      {
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        requestId: '(uuid)',
        headers: expect.objectContaining({ connection: 'close' }),
      },
    ]);
  });
});
