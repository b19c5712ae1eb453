import type { ParleyApp } from '../src/app.setup';
import { createTestApp, http } from './helpers/app';

interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

/** Swagger documents every account route with its body, response and security. */
describe('OpenAPI: accounts and sessions', () => {
  let app: ParleyApp;
  let paths: Record<string, Record<string, Operation>>;
  beforeAll(async () => {
    app = await createTestApp();
    paths = (await http(app).get('/docs/openapi.json')).body.paths;
  });
  afterAll(() => app.close());

  const ROUTES: Array<[string, string, { body?: boolean; ok: string; secured?: boolean }]> = [
    ['post', '/v1/auth/register', { body: true, ok: '200' }],
    ['post', '/v1/auth/login', { body: true, ok: '200' }],
    ['post', '/v1/auth/logout', { ok: '204', secured: true }],
    ['get', '/v1/auth/sessions', { ok: '200', secured: true }],
    ['post', '/v1/auth/sessions/logout', { body: true, ok: '204', secured: true }],
    ['post', '/v1/auth/verify', { body: true, ok: '204' }],
    ['post', '/v1/auth/verify/resend', { ok: '204', secured: true }],
    ['post', '/v1/auth/forgot', { body: true, ok: '204' }],
    ['post', '/v1/auth/reset', { body: true, ok: '200' }],
    ['post', '/v1/auth/email-revert', { body: true, ok: '200' }],
    ['post', '/v1/auth/authorize-ip', { body: true, ok: '204' }],
    ['post', '/v1/auth/ip-authorization/resend', { body: true, ok: '204' }],
    ['get', '/v1/auth/ip-authorization/poll', { ok: '200' }],
    ['post', '/v1/auth/handoff/initiate', { ok: '200' }],
    ['post', '/v1/auth/handoff/complete', { body: true, ok: '204', secured: true }],
    ['get', '/v1/auth/handoff/{code}/status', { ok: '200' }],
    ['post', '/v1/auth/username-suggestions', { body: true, ok: '200' }],
    ['patch', '/v1/users/@me', { body: true, ok: '200', secured: true }],
  ];

  it.each(ROUTES)('%s %s', (method, path, want) => {
    const op = paths[path]?.[method];
    expect(op).toBeDefined();
    expect(op.operationId).toMatch(/^[a-z_]+$/);
    if (want.body) expect(op.requestBody?.content['application/json'].schema).toBeDefined();
    expect(op.responses[want.ok]).toBeDefined();
    if (want.ok === '200') expect(op.responses['200'].content).toBeDefined();
    expect(op.responses['429']).toBeDefined();
    if (want.secured) {
      expect(op.security).toEqual([{ sessionToken: [] }]);
      expect(op.responses['401']).toBeDefined();
    } else {
      expect(op.security ?? []).toEqual([]);
    }
  });
});
