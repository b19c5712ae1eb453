import type { ParleyApp } from '../../src/app.setup';
import { createAdminKey, type TestAdminKey } from '../helpers/admin';
import { createTestApp, http } from '../helpers/app';

/** IP bans on the embedded database: the GiST `>>=` lookup and the NOTIFY-driven cache. */
describe('IP bans on the embedded database', () => {
  let app: ParleyApp;
  let root: TestAdminKey;

  beforeAll(async () => {
    expect(process.env.PARLEY_TEST_DATABASE_KIND).toBe('embedded');
    app = await createTestApp({ env: { TRUST_PROXY: '1' } });
    root = await createAdminKey(app, ['*']);
  });
  afterAll(() => app.close());

  const admin = (path: string, body: object) =>
    http(app).post(`/v1/admin/bans/${path}`).set('Authorization', root.header).send(body);
  const from = (ip: string) => http(app).get('/v1/.well-known/service').set('X-Forwarded-For', ip);

  it('refuses a banned address and a banned range, and lifts both', async () => {
    // Cache an "allowed" decision first: the ban must drop it.
    expect((await from('198.51.100.7')).status).toBe(200);
    expect((await admin('ip/add', { ips: ['198.51.100.7', '203.0.113.0/24'] })).status).toBe(204);

    for (const ip of ['198.51.100.7', '203.0.113.1', '203.0.113.254']) {
      const res = await from(ip);
      expect({ ip, status: res.status, code: res.body.code }).toEqual({
        ip,
        status: 403,
        code: 'IP_BANNED',
      });
    }
    expect((await from('198.51.100.8')).status).toBe(200);
    expect((await from('203.0.114.1')).status).toBe(200);

    const check = await admin('ip/check', { ips: ['203.0.113.9', '198.51.100.8'] });
    expect(check.body).toEqual({
      banned: true,
      results: [
        { value: '203.0.113.9', banned: true, range: '203.0.113.0/24' },
        { value: '198.51.100.8', banned: false, range: null },
      ],
    });

    expect((await admin('ip/remove', { ips: ['198.51.100.7', '203.0.113.0/24'] })).status).toBe(
      204,
    );
    expect((await from('198.51.100.7')).status).toBe(200);
    expect((await from('203.0.113.1')).status).toBe(200);
  });
});
