import type { ParleyApp } from '../src/app.setup';
import { createTestApp, http, RELAXED_LIMITS } from './helpers/app';
import { registerUser } from './helpers/factories';
import { ProbeModule } from './helpers/probe.module';

describe('foundation: errors, discovery, health, docs', () => {
  let app: ParleyApp;

  beforeAll(async () => {
    app = await createTestApp({ imports: [ProbeModule] });
  });
  afterAll(async () => {
    await app.close();
  });

  describe('error envelope', () => {
    it('renders validation errors as INVALID_FORM_BODY with field paths', async () => {
      const res = await http(app)
        .post('/v1/__probe/echo')
        .send({ email: 'not-an-email', count: 11, nested: { name: 'too long' } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_FORM_BODY');
      expect(typeof res.body.message).toBe('string');
      expect(res.body.errors).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ path: 'email', code: 'INVALID_EMAIL' }),
          expect.objectContaining({ path: 'count', code: 'NUMBER_TYPE_MAX' }),
          expect.objectContaining({ path: 'nested.name', code: 'BASE_TYPE_MAX_LENGTH' }),
        ]),
      );
    });

    it('reports missing fields and unknown-typed bodies', async () => {
      const res = await http(app).post('/v1/__probe/echo').send({});
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(
        expect.arrayContaining(['email', 'count', 'nested']),
      );
    });

    it('accepts a valid body', async () => {
      const body = { email: 'a@example.com', count: 3, nested: { name: 'ok' } };
      const res = await http(app).post('/v1/__probe/echo').send(body);
      expect(res.status).toBe(201);
      expect(res.body).toEqual(body);
    });

    it('answers unparsable JSON with 400 INVALID_JSON, not {}', async () => {
      const res = await http(app)
        .post('/v1/__probe/echo')
        .set('Content-Type', 'application/json')
        .send('{"email": "a@example.com",');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'INVALID_JSON', message: expect.any(String) });
    });

    it('answers an oversized body with 413', async () => {
      const res = await http(app)
        .post('/v1/__probe/echo')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ email: 'x'.repeat(1024 * 1024 + 10) }));
      expect(res.status).toBe(413);
      expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('answers an unknown route with 404 NOT_FOUND', async () => {
      const res = await http(app).get('/v1/definitely/not/here');
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
      const root = await http(app).delete('/nothing');
      expect(root.status).toBe(404);
      expect(root.body.code).toBe('NOT_FOUND');
    });

    it('hides internals of unexpected errors behind 500 INTERNAL_SERVER_ERROR', async () => {
      for (const path of ['/v1/__probe/boom', '/v1/__probe/sql']) {
        const res = await http(app).get(path);
        expect(res.status).toBe(500);
        expect(res.body).toEqual({
          code: 'INTERNAL_SERVER_ERROR',
          message: 'Internal server error.',
        });
        expect(res.text).not.toMatch(/SELECT|password_hash|table_that_does_not_exist|at \w+ \(/);
        expect(res.headers['x-request-id']).toEqual(expect.any(String));
      }
    });

    it('echoes a sane X-Request-Id and replaces a bogus one', async () => {
      const ok = await http(app).get('/v1/health/live').set('X-Request-Id', 'req-123');
      expect(ok.headers['x-request-id']).toBe('req-123');
      const bad = await http(app).get('/v1/health/live').set('X-Request-Id', 'bad id with spaces');
      expect(bad.headers['x-request-id']).not.toBe('bad id with spaces');
    });
  });

  describe('authentication plumbing', () => {
    it('refuses protected routes without credentials (401)', async () => {
      const res = await http(app).get('/v1/__probe/user');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    });

    it('treats unknown or malformed credentials as anonymous (401)', async () => {
      for (const header of [
        'nonsense-token',
        'Bearer nope',
        'bearer nope',
        'Bot 1.x',
        'Admin adm_1_x',
      ]) {
        const res = await http(app).get('/v1/__probe/user').set('Authorization', header);
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('UNAUTHORIZED');
      }
    });

    it('refuses admin routes without a key (401)', async () => {
      const res = await http(app).get('/v1/__probe/admin');
      expect(res.status).toBe(401);
    });

    it('denies a route that has neither @Auth nor @Public', async () => {
      const res = await http(app).get('/v1/__probe/forgotten');
      expect(res.status).toBe(401);
      expect(res.text).not.toContain('should never be served');
    });
  });

  describe('discovery', () => {
    it('serves the document at /v1/.well-known/service with CORS *', async () => {
      const res = await http(app)
        .get('/v1/.well-known/service')
        .set('Origin', 'https://elsewhere.example');
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.body).toMatchObject({
        api_code_version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        endpoints: {
          api: 'http://parley.test/v1',
          webapp: 'http://app.parley.test',
          admin: 'http://parley.test/v1/admin',
        },
        features: expect.objectContaining({
          registration: true,
          ip_authorization: true,
          oauth2: true,
          webhooks: true,
          // SSO is off in the test configuration; the factor modules are always served.
          sso: false,
          webauthn: true,
          sms_mfa: true,
        }),
        limits: expect.objectContaining({
          rate_limits: expect.objectContaining({ discovery: { limit: 100000, window_seconds: 1 } }),
          max_webhooks_per_channel: 15,
          password_min_length: 8,
        }),
        sso: { enabled: false, enforced: false, display_name: null, redirect_uri: null },
        federation: { enabled: false },
      });
    });

    it('is also served at the root /.well-known/service', async () => {
      const res = await http(app).get('/.well-known/service');
      expect(res.status).toBe(200);
      expect(res.body.endpoints.api).toBe('http://parley.test/v1');
    });

    it('carries the rate-limit headers with an epoch reset', async () => {
      const res = await http(app).get('/v1/.well-known/service');
      const now = Math.floor(Date.now() / 1000);
      expect(Number(res.headers['x-ratelimit-limit'])).toBe(100000);
      expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThan(100000);
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(now);
      expect(reset).toBeLessThanOrEqual(now + 5);
    });
  });

  describe('health', () => {
    it('answers live and ready without rate-limit headers', async () => {
      const live = await http(app).get('/v1/health/live');
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ status: 'ok', checks: {} });
      expect(live.headers['x-ratelimit-limit']).toBeUndefined();
      const ready = await http(app).get('/v1/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ok', checks: { database: 'ok' } });
    });
  });

  describe('Swagger', () => {
    it('serves Swagger UI at /docs', async () => {
      const res = await http(app).get('/docs/');
      expect(res.status).toBe(200);
      expect(res.text).toContain('swagger-ui');
      // Its assets are served too (the page is useless without them).
      for (const asset of [
        '/docs/swagger-ui-bundle.js',
        '/docs/swagger-ui.css',
        '/docs/swagger-ui-init.js',
      ]) {
        const a = await http(app).get(asset);
        expect({ asset, status: a.status }).toEqual({ asset, status: 200 });
      }
    });

    it('serves the OpenAPI document with the four security schemes', async () => {
      const res = await http(app).get('/docs/openapi.json');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.components.securitySchemes).sort()).toEqual([
        'adminApiKey',
        'bearer',
        'botToken',
        'clientBasic',
        'sessionToken',
      ]);
      const discovery = res.body.paths['/v1/.well-known/service'].get;
      // A GET without parameters cannot be malformed: no 400; IP bans, limits and outages apply.
      expect(Object.keys(discovery.responses).sort()).toEqual(['200', '403', '429', '500', '503']);
      expect(Object.keys(discovery.responses['403'].content['application/json'].examples)).toEqual([
        'IP_BANNED',
      ]);
    });
  });
});

describe('foundation: graceful shutdown', () => {
  it('lets an in-flight request finish when the app closes (what SIGTERM triggers)', async () => {
    const app = await createTestApp({ imports: [ProbeModule] });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    const inFlight = fetch(`http://127.0.0.1:${port}/v1/__probe/slow`);
    await new Promise((r) => setTimeout(r, 100));
    const closed = app.close();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await closed;
    // The listener is gone: new connections are refused.
    await expect(fetch(`http://127.0.0.1:${port}/v1/health/live`)).rejects.toThrow();
  });
});

describe('foundation: broken dependencies', () => {
  it('reports not-ready when Redis is unreachable', async () => {
    const app = await createTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    try {
      const res = await http(app).get('/v1/health/ready');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        checks: { database: 'ok', redis: 'down' },
      });
    } finally {
      await app.close();
    }
  });

  it('keeps serving, and limiting, when Redis is down (counts fall back to this process)', async () => {
    const app = await createTestApp({
      env: {
        REDIS_URL: 'redis://127.0.0.1:1',
        RATE_LIMIT_OVERRIDES: `${RELAXED_LIMITS},discovery=2/60s`,
      },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await http(app).get('/v1/.well-known/service')).status);
      expect(statuses).toEqual([200, 200, 429]);
      // Login's per-e-mail brake uses Redis too: it must not turn logins into 500s.
      const user = await registerUser(app);
      const login = await http(app)
        .post('/v1/auth/login')
        .send({ email: user.email, password: user.password });
      expect(login.status).toBe(200);
      const wrong = await http(app)
        .post('/v1/auth/login')
        .send({ email: user.email, password: 'wrong-password' });
      expect(wrong.status).toBe(400);
    } finally {
      await app.close();
    }
  });

  it('refuses to boot on a bad configuration value, naming the variable', async () => {
    await expect(createTestApp({ env: { PORT: 'eighty' } })).rejects.toThrow(/PORT/);
    await expect(createTestApp({ env: { RATE_LIMITS: 'maybe' } })).rejects.toThrow(/RATE_LIMITS/);
    await expect(createTestApp({ env: { RATE_LIMIT_OVERRIDES: 'nobucket=1/1s' } })).rejects.toThrow(
      /RATE_LIMIT_OVERRIDES/,
    );
  });
});
