import type { ParleyApp } from '../src/app.setup';
import type { Response, Test } from 'supertest';
import { MAX_DTO_JSON_ITEMS } from '../src/common/http/json-limits';
import { createTestApp, http } from './helpers/app';
import { registerUser } from './helpers/factories';
import { createAdminKey } from './helpers/admin';
import { createGuild, createWebhook } from './helpers/guild-factories';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

interface Route {
  template: string;
  method: Method;
  /** Top-level request body fields from the OpenAPI schema (a generic set when it has none). */
  fields: string[];
  /** Declared query parameters, plus `wait` and `limit` everywhere. */
  queries: string[];
  /** The error codes (or RFC 6749 `error` values) its documented error responses show. */
  documented: Set<string>;
  /** Whether the operation documents a request body. */
  hasBody: boolean;
}

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content: Record<string, { schema?: { $ref?: string } }> };
  responses?: Record<
    string,
    {
      content?: Record<
        string,
        { examples?: Record<string, { value?: { code?: unknown; error?: unknown } }> }
      >;
    }
  >;
}

interface OpenApiDoc {
  paths: Record<string, Partial<Record<Method, OpenApiOperation>>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
}

/** What a request sends: a raw body with its content type, and extra headers. */
interface Payload {
  raw: string | Buffer;
  type: string;
  headers?: Record<string, string>;
}

/** A hostile body, built for the fields of the route it is sent to. */
interface HostileBody {
  name: string;
  build(fields: string[]): Payload;
}

// The three RFC 6749 endpoints answer errors as `{error, error_description}`.
const OAUTH_PATHS = new Set([
  '/v1/oauth2/token',
  '/v1/oauth2/token/revoke',
  '/v1/oauth2/introspect',
]);
const GENERIC_FIELDS = ['name', 'content', 'email', 'token', 'id'];
const JSON_TYPE = 'application/json';

/** What the body parsers answer: only documented where the operation takes a body. */
const BODY_CODES = new Set([
  'BAD_REQUEST',
  'INVALID_JSON',
  'JSON_TOO_DEEP',
  'JSON_TOO_MANY_ITEMS',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
]);

/**
 * Every error code answered that the operation's documentation does not show, once per
 * operation, code and status (with the first request that met it): the OpenAPI document must
 * list what a route really answers.
 */
const UNDOCUMENTED = new Map<string, string>();

function noteUndocumented(route: Route, path: string, label: string, res: Response): void {
  if (res.status < 400) return;
  const body = res.body as Record<string, unknown> | undefined;
  const code = typeof body?.code === 'string' ? body.code : body?.error;
  if (typeof code !== 'string' || route.documented.has(code)) return;
  // A body sent to a route that takes none is parsed (and refused) before any route is known:
  // not something the operation's documentation promises.
  if (!route.hasBody && BODY_CODES.has(code)) return;
  const key = `${route.method.toUpperCase()} ${route.template} → ${res.status} ${code}`;
  if (!UNDOCUMENTED.has(key)) UNDOCUMENTED.set(key, `${path.slice(0, 100)} [${label}]`);
}

const PARAM_VALUES = ['abc', '18446744073709551616', '0'];
const BODIES: unknown[] = [
  undefined,
  [],
  'just a string',
  { name: 123, email: ['x'], code: {}, token: 5, password: null, id: -1, channel_id: 'nope' },
  { client_id: '99999999999999999999999', scope: { a: 1 }, grant_type: 7, redirect_uris: 'x' },
];

const deepArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const deepObjects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const jsonOf = (entries: Array<[string, string]>) =>
  `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
/** Every field set to the raw JSON text `value(i)`. */
const eachField = (fields: string[], value: (i: number) => string): Payload => ({
  raw: jsonOf(fields.map((f, i) => [f, value(i)])),
  type: JSON_TYPE,
});
// Bodies stay under the 1 MiB JSON limit so that they reach the parser, pipes and services.
const BODY_BUDGET = 900_000;

const HOSTILE_BODIES: HostileBody[] = [
  { name: '2000 nested arrays', build: () => ({ raw: deepArrays(2000), type: JSON_TYPE }) },
  { name: '2000 nested objects', build: () => ({ raw: deepObjects(2000), type: JSON_TYPE }) },
  {
    name: '2000 levels inside every field',
    build: (f) => eachField(f, (i) => (i % 2 ? deepObjects(2000) : deepArrays(2000))),
  },
  {
    name: 'invalid UTF-8 bytes',
    build: (fields) => ({
      raw: Buffer.concat([
        Buffer.from('{'),
        ...fields.map((f, i) =>
          Buffer.concat([
            Buffer.from(`${i ? ',' : ''}"${f}":"a`),
            Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
            Buffer.from('b"'),
          ]),
        ),
        Buffer.from('}'),
      ]),
      type: JSON_TYPE,
    }),
  },
  { name: 'lone surrogate escapes', build: (f) => eachField(f, () => '"x\\ud800y\\udc00"') },
  { name: 'NUL characters', build: (f) => eachField(f, () => '"a\\u0000b"') },
  {
    name: '100k-element arrays in the fields',
    build: (f) => {
      const n = Math.min(100_000, Math.floor(BODY_BUDGET / (4 * f.length)));
      return eachField(f, (i) => JSON.stringify(Array(n).fill(i % 2 ? {} : 'x')));
    },
  },
  {
    // Past the parser's item limit of DTO routes: validation sees arrays this long.
    name: 'arrays just under the item limit',
    build: (f) => {
      const n = Math.floor((MAX_DTO_JSON_ITEMS - 10) / f.length);
      return eachField(f, (i) => JSON.stringify(Array(n).fill(i % 2 ? {} : 'x')));
    },
  },
  {
    name: '100k-element array as the body',
    build: () => ({ raw: JSON.stringify(Array(100_000).fill({})), type: JSON_TYPE }),
  },
  {
    name: 'very long strings',
    build: (f) => {
      const n = Math.min(200_000, Math.floor(BODY_BUDGET / f.length));
      return eachField(f, () => JSON.stringify('a'.repeat(n)));
    },
  },
  {
    name: 'numbers out of range',
    build: (f) =>
      eachField(
        f,
        (i) => ['1e400', '-1e400', '1e-400', '123456789012345678901234567890', '-0'][i % 5],
      ),
  },
  ...['{}', '[]', 'true', '-1.5', 'null', '{"a":[1,{"b":null}]}'].map((value): HostileBody => ({
    name: `wrong type ${value} in every field`,
    build: (f) => eachField(f, () => value),
  })),
  {
    name: 'prototype-pollution keys, top level and nested',
    build: (fields) => ({
      raw: jsonOf([
        [
          '__proto__',
          jsonOf([...fields.map((f): [string, string] => [f, '"x"']), ['polluted', 'true']]),
        ],
        ['constructor', '{"prototype":{"polluted":true}}'],
        ['prototype', '{"polluted":true}'],
        ...fields.map((f, i): [string, string] => [
          f,
          i % 2
            ? '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'
            : '[{"__proto__":{"polluted":true}},{"constructor":{"prototype":{"polluted":true}}}]',
        ]),
      ]),
      type: JSON_TYPE,
    }),
  },
  {
    name: 'keys that shadow Object.prototype',
    build: () => ({
      raw: '{"":1,"hasOwnProperty":1,"toString":1,"valueOf":"x","toJSON":1,"constructor":"x","0":1}',
      type: JSON_TYPE,
    }),
  },
  { name: 'text/plain', build: (f) => ({ ...eachField(f, () => '"x"'), type: 'text/plain' }) },
  { name: 'application/xml', build: () => ({ raw: '<a><b>1</b></a>', type: 'application/xml' }) },
  {
    name: 'multipart/form-data',
    build: (fields) => ({
      raw: `${fields.map((f) => `--x\r\nContent-Disposition: form-data; name="${f}"\r\n\r\nv\r\n`).join('')}--x--\r\n`,
      type: 'multipart/form-data; boundary=x',
    }),
  },
  {
    name: 'form with repeated, bracketed and prototype keys',
    build: (fields) => ({
      raw: [
        ...fields.flatMap((f) => [
          `${f}=a`,
          `${f}=b`,
          `${f}[]=c`,
          `${f}[x]=d`,
          `${f}=%ZZ%ED%A0%80`,
        ]),
        '__proto__[polluted]=1',
        'constructor[prototype][polluted]=1',
        '__proto__=1',
      ].join('&'),
      type: 'application/x-www-form-urlencoded',
    }),
  },
  {
    name: 'form with 1001 parameters',
    build: () => ({
      raw: Array.from({ length: 1001 }, (_, i) => `p${i}=1`).join('&'),
      type: 'application/x-www-form-urlencoded',
    }),
  },
  {
    name: 'JSON declared as UTF-16',
    build: (f) => ({ ...eachField(f, () => '"x"'), type: `${JSON_TYPE}; charset=utf-16` }),
  },
  {
    name: 'JSON claiming gzip',
    build: (f) => ({ ...eachField(f, () => '"x"'), headers: { 'Content-Encoding': 'gzip' } }),
  },
  {
    name: 'application/octet-stream',
    build: () => ({ raw: Buffer.from([0, 1, 2, 0xff]), type: 'application/octet-stream' }),
  },
];

/** Query strings with repeated, bracketed, out-of-range and badly encoded values. */
function hostileQueries(names: string[]): string[] {
  const each = (value: (n: string) => string) => names.map(value).join('&');
  return [
    each((n) => `${n}=true&${n}=false&${n}=1`),
    each((n) => `${n}[]=1&${n}[a]=2`),
    each((n) => `${n}=1e400&${n}x=-1`),
    each((n) => `${n}=18446744073709551616`),
    each((n) => `${n}=%ZZ&%ZZ=1&${n}2=%00`),
    each((n) => `${n}=%ED%A0%80`),
    each((n) => `${n}=${'9'.repeat(2000)}`),
    '__proto__=1&constructor=2&__proto__[polluted]=1&constructor[prototype][polluted]=1',
  ];
}

// Odd path parameter encodings; lengths stay under Node's 16 KiB header limit (431 comes before
// the application).
const HOSTILE_PARAMS = [
  '%ZZ',
  '%00',
  '%',
  '%C3%28',
  '%ED%A0%80',
  '%F0%9F%98%80',
  '..%2F..',
  '%20',
  '-1',
  '1e400',
  '__proto__',
  'constructor',
  'a'.repeat(3000),
  '9'.repeat(3000),
];

async function loadRoutes(app: ParleyApp): Promise<Route[]> {
  const doc = (await http(app).get('/docs/openapi.json')).body as OpenApiDoc;
  const routes: Route[] = [];
  for (const [template, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops) as Array<[Method, OpenApiOperation]>) {
      const ref = Object.values(op.requestBody?.content ?? {})[0]?.schema?.$ref;
      const props = ref ? doc.components.schemas[ref.split('/').pop()!]?.properties : undefined;
      const fields = props ? Object.keys(props) : [];
      const declared = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      const documented = new Set<string>();
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (Number(status) < 400) continue;
        for (const media of Object.values(response.content ?? {})) {
          for (const { value } of Object.values(media.examples ?? {})) {
            const code = value?.code ?? value?.error;
            if (typeof code === 'string') documented.add(code);
          }
        }
      }
      routes.push({
        template,
        method,
        fields: fields.length ? fields : GENERIC_FIELDS,
        queries: [...new Set([...declared, 'wait', 'limit'])],
        documented,
        hasBody: op.requestBody !== undefined,
      });
    }
  }
  return routes;
}

/**
 * Deletions, then ending the session, come last so that the other calls still find the resources
 * and still run with a live session.
 */
function callOrder(route: Route): number {
  if (route.template === '/v1/auth/logout') return 2;
  return route.method === 'delete' ? 1 : 0;
}

/** Null when the answer is acceptable: below 500, and every 4xx in its error envelope. */
function problemWith(path: string, res: Response): string | null {
  if (res.status >= 500) return `${res.status}`;
  if (res.status < 400) return null;
  const body = res.body as Record<string, unknown> | undefined;
  if (OAUTH_PATHS.has(path.split('?')[0])) {
    return typeof body?.error === 'string' ? null : `${res.status} without an RFC 6749 error`;
  }
  return typeof body?.code === 'string' && typeof body?.message === 'string'
    ? null
    : `${res.status} without the {code, message} envelope`;
}

/** Sends bytes as they are (superagent would JSON-encode a Buffer under a JSON content type). */
const sendRaw = (req: Test, raw: string | Buffer): Test =>
  req.serialize((body: string) => body).send(raw as string);

/** An admin key (ACL `*`) per app under test, used on /v1/admin routes in place of the session. */
const ADMIN_KEYS = new WeakMap<ParleyApp, string>();

/** Sends one request and returns a failure line, or null (and notes an undocumented code). */
async function call(
  app: ParleyApp,
  route: Route,
  path: string,
  auth: string | undefined,
  payload: Payload | undefined,
  label: string,
): Promise<string | null> {
  const { method } = route;
  let req = http(app)[method](path);
  // Admin routes take an admin key where the other routes take the session: their validation and
  // handlers must see the garbage too, not only the 401 in front of them.
  const admin = ADMIN_KEYS.get(app);
  if (auth) req = req.set('Authorization', admin && path.startsWith('/v1/admin') ? admin : auth);
  if (payload && method !== 'get') {
    req = req.set('Content-Type', payload.type);
    if (payload.headers) req = req.set(payload.headers);
    req = sendRaw(req, payload.raw);
  }
  const res = await req;
  noteUndocumented(route, path, label, res);
  const problem = problemWith(path, res);
  return problem
    ? `${method.toUpperCase()} ${path.slice(0, 120)} [${label}] → ${problem}: ${res.text.slice(0, 160)}`
    : null;
}

/** Runs calls a few at a time (the app is in this process; its database waits overlap). */
async function runAll(calls: Array<() => Promise<string | null>>, width = 4): Promise<string[]> {
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const failure = await calls[next++]();
      if (failure) failures.push(failure);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return failures;
}

const fill = (template: string, value: (name: string) => string) =>
  template.replace(/\{([^}]+)\}/g, (_m, name: string) => value(name));

/**
 * Bad input is a 4xx in the error envelope, never a 500: every documented route is called with
 * malformed path params, query strings and bodies, with and without a session.
 */
describe('robustness: every route answers garbage with a 4xx', () => {
  let app: ParleyApp;
  let token: string;
  let routes: Route[];

  beforeAll(async () => {
    app = await createTestApp();
    token = (await registerUser(app)).token;
    ADMIN_KEYS.set(app, (await createAdminKey(app, ['*'])).header);
    routes = (await loadRoutes(app)).sort((a, b) => callOrder(a) - callOrder(b));
  });
  afterAll(() => app.close());

  it('never answers 5xx, and answers every 4xx in the envelope', async () => {
    const calls: Array<() => Promise<string | null>> = [];
    for (const route of routes.filter((r) => callOrder(r) < 2)) {
      for (const value of PARAM_VALUES) {
        const path = fill(route.template, () => encodeURIComponent(value));
        for (const body of BODIES) {
          const payload =
            body === undefined ? undefined : { raw: JSON.stringify(body), type: JSON_TYPE };
          for (const auth of [undefined, token]) {
            calls.push(() => call(app, route, path, auth, payload, String(JSON.stringify(body))));
          }
        }
      }
    }
    const failures = await runAll(calls);
    expect(calls.length).toBeGreaterThan(500);
    expect(failures).toEqual([]);
    // The session lived through every call, so the authenticated half really ran authenticated.
    expect((await http(app).get('/v1/users/@me').set('Authorization', token)).status).toBe(200);
  }, 240_000);

  it('answers hostile bodies (deep, huge, ill-encoded, polluting, mistyped) with a 4xx envelope', async () => {
    const failures: string[] = [];
    for (const phase of [0, 1, 2]) {
      const calls: Array<() => Promise<string | null>> = [];
      for (const route of routes.filter((r) => callOrder(r) === phase)) {
        const path = fill(route.template, () => '1234567890123456789');
        for (const hostile of HOSTILE_BODIES) {
          const payload = hostile.build(route.fields);
          for (const auth of [undefined, token]) {
            calls.push(() => call(app, route, path, auth, payload, hostile.name));
          }
        }
      }
      if (phase === 2) {
        // Everything before the session ends has run: it must still be alive.
        expect((await http(app).get('/v1/users/@me').set('Authorization', token)).status).toBe(200);
      }
      failures.push(...(await runAll(calls)));
    }
    expect(failures).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    // Every documented route × every hostile body: it grows with the API (≈ 200 routes now).
  }, 240_000);

  it('answers odd path params and query strings with a 4xx envelope', async () => {
    const fresh = (await registerUser(app)).token;
    const calls: Array<() => Promise<string | null>> = [];
    for (const route of routes.filter((r) => callOrder(r) < 2)) {
      const paths: string[] = [];
      const base = fill(route.template, () => '1234567890123456789');
      for (const query of hostileQueries(route.queries)) paths.push(`${base}?${query}`);
      if (route.template.includes('{')) {
        for (const param of HOSTILE_PARAMS) paths.push(fill(route.template, () => param));
      }
      const payload = { raw: '{}', type: JSON_TYPE };
      for (const path of paths) {
        for (const auth of [undefined, fresh]) {
          calls.push(() => call(app, route, path, auth, payload, 'odd params'));
        }
      }
    }
    const failures = await runAll(calls);
    expect(calls.length).toBeGreaterThan(1000);
    expect(failures).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
   }, 240_000);

  it('never answers 5xx with real ids, garbage and hostile bodies and odd query strings', async () => {
    const owner = await registerUser(app);
    const auth = { Authorization: owner.token };
    const guild = await http(app).post('/v1/guilds').set(auth).send({ name: 'Robust' });
    const channels = await http(app).get(`/v1/guilds/${guild.body.id}/channels`).set(auth);
    const channelId = channels.body[0].id as string;
    const hook = await http(app)
      .post(`/v1/channels/${channelId}/webhooks`)
      .set(auth)
      .send({ name: 'Robust' });
    const application = await http(app)
      .post('/v1/oauth2/applications')
      .set(auth)
      .send({ name: 'Robust', redirect_uris: ['https://robust.example/cb'] });
    const handoff = await http(app).post('/v1/auth/handoff/initiate').send({});
    const ids: Record<string, string> = {
      guild_id: guild.body.id,
      channel_id: channelId,
      webhook_id: hook.body.id,
      token: hook.body.token,
      id: application.body.id,
      application_id: application.body.id,
      user_id: owner.userId,
      code: handoff.body.code,
    };
    expect(Object.values(ids).every((v) => typeof v === 'string' && v.length > 0)).toBe(true);
    const failures: string[] = [];
    // In order (deletions, then logout, last), one call at a time.
    for (const route of routes) {
      const path = fill(route.template, (name) => ids[name] ?? 'abc');
      if (callOrder(route) === 2) {
        // The session lived through everything before: the deletions ran as the owner.
        expect((await http(app).get('/v1/users/@me').set(auth)).status).toBe(200);
        expect((await http(app).get(`/v1/webhooks/${ids.webhook_id}`).set(auth)).status).toBe(404);
      }
      const cases: Array<{ label: string; url: string; payload?: Payload }> = [
        ...BODIES.map((body) => ({
          label: String(JSON.stringify(body)),
          url: path,
          payload: body === undefined ? undefined : { raw: JSON.stringify(body), type: JSON_TYPE },
        })),
        ...HOSTILE_BODIES.map((h) => ({
          label: h.name,
          url: path,
          payload: h.build(route.fields),
        })),
        ...hostileQueries(route.queries).map((query) => ({
          label: 'query',
          url: `${path}?${query}`,
          payload: { raw: '{}', type: JSON_TYPE },
        })),
      ];
      for (const { label, url, payload } of cases) {
        const failure = await call(app, route, url, owner.token, payload, label);
        if (failure) failures.push(failure);
      }
    }
    expect(failures).toEqual([]);
   }, 240_000);

  it('answers 401 UNAUTHORIZED without credentials on every route that declares a user, bot or bearer security', async () => {
    const doc = (await http(app).get('/docs/openapi.json')).body as {
      paths: Record<string, Partial<Record<Method, { security?: Array<Record<string, unknown>> }>>>;
    };
    const guarded = new Set(['sessionToken', 'botToken', 'bearer', 'adminApiKey']);
    const failures: string[] = [];
    let checked = 0;
    for (const [template, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops) as Array<
        [Method, { security?: Array<Record<string, unknown>> }]
      >) {
        const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
        if (!schemes.some((s) => guarded.has(s))) continue;
        const path = template.replace(/\{[^}]+\}/g, '1234567890123456789');
        const res = await http(app)
          [method](path)
          .set('Content-Type', 'application/json')
          .send('{}');
        checked += 1;
        if (res.status !== 401 || res.body.code !== 'UNAUTHORIZED') {
          failures.push(
            `${method.toUpperCase()} ${template} → ${res.status} ${res.text.slice(0, 120)}`,
          );
        }
      }
    }
    expect(checked).toBeGreaterThan(30);
    expect(failures).toEqual([]);
  });

  // Last: the calls above collected what they were answered.
  it('answered only error codes the OpenAPI document shows on the operation', () => {
    const listed = [...UNDOCUMENTED].map(([key, first]) => `${key} (first: ${first})`).sort();
    expect(listed).toEqual([]);
  });
});

/** The parse-time limits of common/http/body-parsers.ts, each on a route that used to answer 500. */
describe('robustness: parse-time limits', () => {
  let app: ParleyApp;
  let token: string;

  beforeAll(async () => {
    app = await createTestApp();
    token = (await registerUser(app)).token;
  });
  afterAll(() => app.close());

  const tooDeep = { code: 'JSON_TOO_DEEP', message: expect.stringContaining('32') };

  it.each([
    ['arrays', deepArrays(2000)],
    ['objects', deepObjects(2000)],
    ['arrays in a field', `{"username":${deepArrays(2000)},"email":"a@b.c"}`],
    ['objects in a field', `{"username":"abc","email":${deepObjects(2000)}}`],
  ])('POST /v1/auth/register: 2000 levels of %s → 400 JSON_TOO_DEEP', async (_kind, body) => {
    const res = await http(app).post('/v1/auth/register').set('Content-Type', JSON_TYPE).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(tooDeep);
  });

  it.each([
    ['arrays', deepArrays(2000)],
    ['objects', deepObjects(2000)],
    ['arrays in a field', `{"global_name":${deepArrays(2000)}}`],
  ])('PATCH /v1/users/@me: 2000 levels of %s → 400 JSON_TOO_DEEP', async (_kind, body) => {
    const res = await http(app)
      .patch('/v1/users/@me')
      .set('Authorization', token)
      .set('Content-Type', JSON_TYPE)
      .send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(tooDeep);
  });

  it('lets 32 levels through to validation and stops 33 at the parser', async () => {
    // global_name wrapped in 31 arrays: the body is 32 deep, so validation answers.
    const at32 = await http(app)
      .patch('/v1/users/@me')
      .set('Authorization', token)
      .set('Content-Type', JSON_TYPE)
      .send(`{"global_name":${deepArrays(31)}}`);
    expect(at32.status).toBe(400);
    expect(at32.body.code).toBe('INVALID_FORM_BODY');
    const at33 = await http(app)
      .patch('/v1/users/@me')
      .set('Authorization', token)
      .set('Content-Type', JSON_TYPE)
      .send(`{"global_name":${deepArrays(32)}}`);
    expect(at33.status).toBe(400);
    expect(at33.body).toEqual(tooDeep);
  });

  it('caps the large (repohost) payloads too, once the token is right', async () => {
    const guild = await createGuild(app, token);
    const hook = await createWebhook(app, token, guild.channelId);
    const deep = `{"commits":${deepArrays(2000)}}`;
    const res = await http(app)
      .post(`/v1/webhooks/${hook.id}/${hook.token}/repohost`)
      .set('Content-Type', JSON_TYPE)
      .set('X-GitHub-Event', 'push')
      .send(deep);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(tooDeep);
    // With a wrong token the body is never read: the unknown webhook answers.
    const wrong = await http(app)
      .post(`/v1/webhooks/${hook.id}/${'x'.repeat(64)}/repohost`)
      .set('Content-Type', JSON_TYPE)
      .set('X-GitHub-Event', 'push')
      .send(deep);
    expect(wrong.status).toBe(404);
    expect(wrong.body.code).toBe('UNKNOWN_WEBHOOK');
  });

  it('answers the OAuth2 endpoints in their RFC 6749 shape', async () => {
    for (const path of OAUTH_PATHS) {
      const res = await http(app).post(path).set('Content-Type', JSON_TYPE).send(deepArrays(2000));
      expect(res.status).toBe(400);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    }
  });

  it('answers 100k items to a DTO route with 400 JSON_TOO_MANY_ITEMS, and lets webhook payloads hold them', async () => {
    const many = JSON.stringify({ global_name: 'x', extra: Array(100_000).fill({}) });
    const dto = await http(app)
      .patch('/v1/users/@me')
      .set('Authorization', token)
      .set('Content-Type', JSON_TYPE)
      .send(many);
    expect(dto.status).toBe(400);
    expect(dto.body).toEqual({
      code: 'JSON_TOO_MANY_ITEMS',
      message: expect.stringContaining('10000'),
    });
    // A webhook delivery is a foreign payload: it may hold them (here: an event that is not
    // rendered, so nothing is posted).
    const guild = await createGuild(app, token);
    const hook = await createWebhook(app, token, guild.channelId);
    const foreign = await http(app)
      .post(`/v1/webhooks/${hook.id}/${hook.token}/errortracker`)
      .set('Content-Type', JSON_TYPE)
      .send(many);
    expect(foreign.status).toBe(204);
  });

  it('answers invalid UTF-8 and unpaired surrogate escapes with 400 INVALID_JSON', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"email":"a'),
      Buffer.from([0xff, 0xc3, 0x28]),
      Buffer.from('@b.c","password":"correct-horse"}'),
    ]);
    const invalid = await sendRaw(
      http(app).post('/v1/auth/login').set('Content-Type', JSON_TYPE),
      bytes,
    );
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({
      code: 'INVALID_JSON',
      message: expect.stringContaining('UTF-8'),
    });
    // validator's isEmail used to throw URIError on it (500).
    const lone = await http(app)
      .post('/v1/auth/login')
      .set('Content-Type', JSON_TYPE)
      .send('{"email":"a\\ud800@b.c","password":"correct-horse"}');
    expect(lone.status).toBe(400);
    expect(lone.body).toEqual({
      code: 'INVALID_JSON',
      message: expect.stringContaining('surrogate'),
    });
    const pair = await http(app)
      .patch('/v1/users/@me')
      .set('Authorization', token)
      .set('Content-Type', JSON_TYPE)
      .send('{"global_name":"smile \\ud83d\\ude00"}');
    expect(pair.status).toBe(200);
    expect(pair.body.global_name).toBe('smile 😀');
  });

  it('answers bodies the parsers refuse with their 4xx, not 500', async () => {
    const gzip = await http(app)
      .post('/v1/auth/login')
      .set('Content-Type', JSON_TYPE)
      .set('Content-Encoding', 'gzip')
      .send('{"email":"a@b.c"}');
    expect(gzip.status).toBe(400);
    expect(gzip.body).toEqual({ code: 'BAD_REQUEST', message: expect.any(String) });
    const params = await http(app)
      .post('/v1/auth/login')
      .type('form')
      .send(Array.from({ length: 1001 }, (_, i) => `p${i}=1`).join('&'));
    expect(params.status).toBe(413);
    expect(params.body).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) });
    const utf16 = await sendRaw(
      http(app).post('/v1/auth/login').set('Content-Type', `${JSON_TYPE}; charset=utf-16`),
      Buffer.from('{"email":"a@b.c"}', 'utf16le'),
    );
    expect(utf16.status).toBe(415);
    expect(utf16.body).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.any(String) });
  });
});
