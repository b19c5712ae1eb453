import type { ParleyApp } from '../../src/app.setup';
import { createTestApp, http, RELAXED_LIMITS } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { createGuild, createWebhook, type TestWebhook } from '../helpers/guild-factories';
import { send, sendWithheldBody } from '../helpers/http-client';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

interface Operation {
  security?: Array<Record<string, unknown>>;
}

interface OpenApiDoc {
  paths: Record<string, Partial<Record<Method, Operation>>>;
}

const SNOWFLAKE = '1234567890123456789';
/** 1 MiB announced, 16 KiB sent: a server that parses before it authenticates waits forever. */
const DECLARED = 1024 * 1024;
const FIRST_CHUNK = `{"name":"${'x'.repeat(16 * 1024)}`;

/** A concrete path for a template: ids for ids, a well-formed but wrong webhook token. */
function concrete(template: string): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    name === 'token' ? 'A'.repeat(64) : name === 'code' ? 'ABCD-EFGH' : SNOWFLAKE,
  );
}

const listening = async (app: ParleyApp): Promise<number> => {
  await app.listen(0, '127.0.0.1');
  return (app.getHttpServer().address() as { port: number }).port;
};

/**
 * Security finding 2 (a pre-authentication stall) and its neighbours: wherever the credential is
 * not in the body — the `Authorization` header, a webhook token in the path — it is checked, and
 * the rate limits counted, before a byte of the body is read. Each request announces a 1 MiB body,
 * sends 16 KiB and withholds the rest: only a server that answers without reading it answers.
 */
describe('credentials and limits before the body', () => {
  let app: ParleyApp;
  let port: number;
  let doc: OpenApiDoc;

  beforeAll(async () => {
    app = await createTestApp({
      env: {
        TRUST_PROXY: 'on',
        RATE_LIMIT_OVERRIDES: `${RELAXED_LIMITS},auth:login=1/60s`,
      },
    });
    port = await listening(app);
    doc = (await http(app).get('/docs/openapi.json')).body as OpenApiDoc;
  });
  afterAll(() => app.close());

  it('answers every route that takes a header credential 401 without reading the body', async () => {
    const checked: string[] = [];
    const failures: string[] = [];
    for (const [template, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops) as Array<[Method, Operation]>) {
        if (method === 'get' || !op.security || op.security.length === 0) continue;
        // Routes anyone may call (an empty requirement among the alternatives) are not here.
        if (op.security.some((s) => Object.keys(s).length === 0)) continue;
        const schemes = op.security.flatMap((s) => Object.keys(s));
        if (schemes.includes('clientBasic')) continue;
        const label = `${method.toUpperCase()} ${template}`;
        checked.push(label);
        try {
          const res = await sendWithheldBody({
            port,
            method: method.toUpperCase(),
            path: concrete(template),
            // An address of its own per route: this suite also tightens a bucket some share.
            headers: {
              'X-Forwarded-For': `10.20.${Math.floor(checked.length / 250)}.${checked.length % 250}`,
            },
            declaredLength: DECLARED,
            firstChunk: FIRST_CHUNK,
          });
          if (res.status !== 401 || res.json?.code !== 'UNAUTHORIZED') {
            failures.push(`${label}: ${res.status} ${res.text}`);
          } else if (res.headers.connection !== 'close') {
            failures.push(`${label}: the connection with an unread body stays open`);
          }
        } catch (err) {
          failures.push(`${label}: ${(err as Error).message}`);
        }
      }
    }
    expect(checked.length).toBeGreaterThan(40);
    expect(failures).toEqual([]);
  });

  it('answers every route authenticated by a webhook token 404 for a wrong one, without reading the body', async () => {
    const tokenRoutes = Object.entries(doc.paths).flatMap(([template, ops]) =>
      template.includes('{token}')
        ? (Object.keys(ops) as Method[])
            .filter((m) => m !== 'get')
            .map((m) => ({ template, method: m.toUpperCase() }))
        : [],
    );
    // POST (plain, repohost, errortracker, chatcompat), PATCH and DELETE; a message's PATCH and DELETE.
    expect(tokenRoutes.map((r) => `${r.method} ${r.template}`).sort()).toEqual([
      'DELETE /v1/webhooks/{webhook_id}/{token}',
      'DELETE /v1/webhooks/{webhook_id}/{token}/messages/{message_id}',
      'PATCH /v1/webhooks/{webhook_id}/{token}',
      'PATCH /v1/webhooks/{webhook_id}/{token}/messages/{message_id}',
      'POST /v1/webhooks/{webhook_id}/{token}',
      'POST /v1/webhooks/{webhook_id}/{token}/chatcompat',
      'POST /v1/webhooks/{webhook_id}/{token}/errortracker',
      'POST /v1/webhooks/{webhook_id}/{token}/repohost',
    ]);
    const owner = await registerUser(app);
    const guild = await createGuild(app, owner.token);
    const hook = await createWebhook(app, owner.token, guild.channelId);
    for (const { template, method } of tokenRoutes) {
      // A real webhook with a wrong token, and an id that names no webhook.
      for (const path of [
        template.replace('{webhook_id}', hook.id).replace('{token}', 'B'.repeat(64)),
        concrete(template),
      ]) {
        const res = await sendWithheldBody({
          port,
          method,
          path,
          declaredLength: 23 * 1024 * 1024,
          firstChunk: '['.repeat(1) + '{},'.repeat(4096),
        });
        expect({ route: `${method} ${path}`, status: res.status, code: res.json?.code }).toEqual({
          route: `${method} ${path}`,
          status: 404,
          code: 'UNKNOWN_WEBHOOK',
        });
        expect(res.headers.connection).toBe('close');
      }
    }
  });

  it('checks HTTP Basic client credentials of the OAuth2 endpoints before the body', async () => {
    const basic = `Basic ${Buffer.from(`${SNOWFLAKE}:not-the-secret`).toString('base64')}`;
    for (const path of ['/v1/oauth2/token', '/v1/oauth2/introspect', '/v1/oauth2/token/revoke']) {
      const res = await sendWithheldBody({
        port,
        method: 'POST',
        path,
        headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' },
        declaredLength: DECLARED,
        firstChunk: `grant_type=authorization_code&code=${'x'.repeat(16 * 1024)}`,
      });
      expect({ path, status: res.status, body: res.json }).toEqual({
        path,
        status: 401,
        body: { error: 'invalid_client', error_description: expect.any(String) },
      });
      expect(res.headers['www-authenticate']).toBe('Basic realm="parley"');
    }
  });

  it('counts a rate limit before the body too', async () => {
    const ip = '198.51.100.23';
    const first = await send({
      port,
      method: 'POST',
      path: '/v1/auth/login',
      headers: { 'X-Forwarded-For': ip },
      body: { email: 'nobody@example.test', password: 'wrong-password' },
    });
    expect(first.status).toBe(400);
    const limited = await sendWithheldBody({
      port,
      method: 'POST',
      path: '/v1/auth/login',
      headers: { 'X-Forwarded-For': ip },
      declaredLength: DECLARED,
      firstChunk: FIRST_CHUNK,
    });
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({ code: 'RATE_LIMITED', global: false });
  });

  it('still reads the body of a request whose credential holds', async () => {
    const user: TestUser = await registerUser(app);
    const res = await http(app)
      .patch('/v1/users/@me')
      .set('Authorization', user.token)
      .send({ global_name: 'Read after the guard' });
    expect(res.status).toBe(200);
    expect(res.body.global_name).toBe('Read after the guard');
  });
});

/**
 * Security finding 3: the webhook id is public (every message it posts shows it), so requests
 * with a wrong token must not spend the webhook's own budget; they count against the address that
 * sends them. Checked on every bucket keyed by a webhook: execute (plain and chatcompat),
 * repohost and errortracker.
 */
describe('failed webhook tokens count against the caller', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let hook: TestWebhook;

  beforeAll(async () => {
    app = await createTestApp({
      env: {
        TRUST_PROXY: 'on',
        RATE_LIMIT_OVERRIDES: `${RELAXED_LIMITS},webhook:execute=3/60s,webhook:repohost=3/60s,webhook:errortracker=3/60s`,
      },
    });
    owner = await registerUser(app);
    const guild = await createGuild(app, owner.token);
    hook = await createWebhook(app, owner.token, guild.channelId);
  });
  afterAll(() => app.close());

  it.each([
    ['', { content: 'hello' }, {}],
    ['/repohost', { zen: 'Keep it logically awesome.', hook_id: 1 }, { 'X-GitHub-Event': 'ping' }],
    ['/errortracker', { action: 'created', data: {} }, { 'Sentry-Hook-Resource': 'installation' }],
  ])(
    'POST …%s: a stranger’s wrong tokens never silence the real sender',
    async (suffix, body, headers) => {
      const post = (token: string, ip: string) =>
        http(app)
          .post(`/v1/webhooks/${hook.id}/${token}${suffix}`)
          .set('X-Forwarded-For', ip)
          .set(headers as Record<string, string>)
          .send(body);
      const stranger = `203.0.113.${10 + suffix.length}`;
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await post('C'.repeat(64), stranger)).status);
      // The stranger's own address runs out of attempts…
      expect(statuses).toEqual([404, 404, 404, 429, 429, 429]);
      // …while the webhook's sender, from elsewhere, still has its whole budget.
      const sender = `192.0.2.${10 + suffix.length}`;
      for (let i = 0; i < 3; i++) {
        const res = await post(hook.token, sender);
        expect(res.status).toBe(204);
      }
      const over = await post(hook.token, sender);
      expect(over.status).toBe(429);
      expect(over.headers['x-ratelimit-bucket']).toMatch(/^webhook:/);
    },
  );
});
