import type { NestExpressApplication } from '@nestjs/platform-express';
import { createTestApp, http } from './helpers/app';
import { registerUser } from './helpers/factories';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

const PARAM_VALUES = ['abc', '18446744073709551616', '0'];
const BODIES: unknown[] = [
  undefined,
  [],
  'just a string',
  { name: 123, email: ['x'], code: {}, token: 5, password: null, id: -1, channel_id: 'nope' },
  { client_id: '99999999999999999999999', scope: { a: 1 }, grant_type: 7, redirect_uris: 'x' },
];

/**
 * Bad input is a 4xx, never a 500: every documented route is called with malformed path params and
 * bodies, with and without a session.
 */
describe('robustness: every route answers garbage with a 4xx', () => {
  let app: NestExpressApplication;
  let token: string;

  beforeAll(async () => {
    app = await createTestApp();
    token = (await registerUser(app)).token;
  });
  afterAll(() => app.close());

  it('never answers 5xx', async () => {
    const doc = (await http(app).get('/docs/openapi.json')).body as {
      paths: Record<string, Partial<Record<Method, unknown>>>;
    };
    const failures: string[] = [];
    let calls = 0;
    for (const [template, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops) as Method[]) {
        for (const value of PARAM_VALUES) {
          const path = template.replace(/\{[^}]+\}/g, encodeURIComponent(value));
          for (const body of BODIES) {
            for (const auth of [undefined, token]) {
              let req = http(app)[method](path);
              if (auth) req = req.set('Authorization', auth);
              if (body !== undefined && method !== 'get') {
                req = req.set('Content-Type', 'application/json').send(JSON.stringify(body));
              }
              const res = await req;
              calls += 1;
              if (res.status >= 500) {
                failures.push(
                  `${method.toUpperCase()} ${path} ${JSON.stringify(body)} → ${res.status} ${res.text.slice(0, 200)}`,
                );
              }
            }
          }
        }
      }
    }
    expect(calls).toBeGreaterThan(500);
    expect(failures).toEqual([]);
  });

  it('never answers 5xx with real ids and garbage bodies', async () => {
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
    const doc = (await http(app).get('/docs/openapi.json')).body as {
      paths: Record<string, Partial<Record<Method, unknown>>>;
    };
    const failures: string[] = [];
    // Deletions last, so the other calls still find the resources.
    const entries = Object.entries(doc.paths).flatMap(([template, ops]) =>
      (Object.keys(ops) as Method[]).map((method) => ({ template, method })),
    );
    entries.sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));
    for (const { template, method } of entries) {
      const path = template.replace(/\{([^}]+)\}/g, (_m, name: string) => ids[name] ?? 'abc');
      for (const body of BODIES) {
        let req = http(app)[method](path).set(auth);
        if (body !== undefined && method !== 'get') {
          req = req.set('Content-Type', 'application/json').send(JSON.stringify(body));
        }
        const res = await req;
        if (res.status >= 500) {
          failures.push(
            `${method.toUpperCase()} ${path} ${JSON.stringify(body)} → ${res.status} ${res.text.slice(0, 200)}`,
          );
        }
      }
    }
    expect(failures).toEqual([]);
  });

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
});
