import type { ParleyApp } from '../src/app.setup';
import { DataSource } from 'typeorm';
import type { CredentialScheme } from '../src/common/auth/authorization-header';
import { CredentialResolvers } from '../src/common/auth/credential-resolvers';
import { createTestApp, http } from './helpers/app';
import { registerUser } from './helpers/factories';
import { basicAuth, createApplication, issueTokens } from './helpers/oauth2-factories';

/**
 * Credentials are cached in each instance's memory. A revocation is refused at once by the
 * instance that made it, and by every other instance as soon as the database's notification
 * reaches it (triggers NOTIFY at commit; every instance LISTENs) — whatever code path, or plain
 * SQL, made the change.
 */
describe('credential cache across two instances on one database', () => {
  let a: ParleyApp;
  let b: ParleyApp;

  /** Waits (≤ 2 s) until `app` has heard that the credential changed, i.e. dropped it. */
  async function heard(app: ParleyApp, scheme: CredentialScheme, credential: string) {
    const resolvers = app.get(CredentialResolvers);
    for (let i = 0; i < 400 && resolvers.isCached(scheme, credential); i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('serves a session from the cache; a logout is refused at once here and on the other instance', async () => {
    const user = await registerUser(a);
    const other = await http(a)
      .post('/v1/auth/login')
      .send({ email: user.email, password: user.password });
    expect(other.status).toBe(200);
    const second = (other.body as { token: string }).token;
    for (const app of [a, b]) {
      for (const token of [user.token, second]) {
        expect((await http(app).get('/v1/users/@me').set('Authorization', token)).status).toBe(200);
      }
    }
    const resolversB = b.get(CredentialResolvers);
    expect(resolversB.isCached('session', user.token)).toBe(true);

    expect((await http(a).post('/v1/auth/logout').set('Authorization', user.token)).status).toBe(
      204,
    );
    // The instance that logged out refuses the token on the very next request.
    const here = await http(a).get('/v1/users/@me').set('Authorization', user.token);
    expect(here.status).toBe(401);
    expect(here.body).toMatchObject({ code: 'UNAUTHORIZED' });
    // The other instance hears the database's notification and refuses it too.
    await heard(b, 'session', user.token);
    expect((await http(b).get('/v1/users/@me').set('Authorization', user.token)).status).toBe(401);
    // The user's other session is untouched on both.
    for (const app of [a, b]) {
      expect((await http(app).get('/v1/users/@me').set('Authorization', second)).status).toBe(200);
    }
  });

  it('refuses a session deleted by plain SQL (no application code involved)', async () => {
    const user = await registerUser(a);
    expect((await http(b).get('/v1/users/@me').set('Authorization', user.token)).status).toBe(200);
    await a.get(DataSource).query('DELETE FROM auth_sessions WHERE user_id = $1', [user.userId]);
    await heard(b, 'session', user.token);
    expect((await http(b).get('/v1/users/@me').set('Authorization', user.token)).status).toBe(401);
  });

  it('refuses a revoked OAuth2 access token, here at once and on the other instance', async () => {
    const owner = await registerUser(a);
    const client = await createApplication(a, owner);
    const tokens = await issueTokens(a, owner, client);
    const bearer = `Bearer ${tokens.access_token}`;
    const introspect = (app: ParleyApp) =>
      http(app)
        .post('/v1/oauth2/introspect')
        .set('Authorization', basicAuth(client.id, client.clientSecret))
        .type('form')
        .send({ token: tokens.access_token });
    for (const app of [a, b]) {
      expect((await http(app).get('/v1/oauth2/@me').set('Authorization', bearer)).status).toBe(200);
      expect((await introspect(app)).body).toMatchObject({ active: true, sub: owner.userId });
    }
    const revoke = await http(a)
      .post('/v1/oauth2/token/revoke')
      .set('Authorization', basicAuth(client.id, client.clientSecret))
      .type('form')
      .send({ token: tokens.access_token });
    expect(revoke.status).toBe(200);
    expect((await http(a).get('/v1/oauth2/@me').set('Authorization', bearer)).status).toBe(401);
    expect((await introspect(a)).body).toEqual({ active: false });
    await heard(b, 'bearer', tokens.access_token);
    expect((await http(b).get('/v1/oauth2/@me').set('Authorization', bearer)).status).toBe(401);
    expect((await introspect(b)).body).toEqual({ active: false });
  });

  it('refuses an old bot token once it is reset, here at once and on the other instance', async () => {
    const owner = await registerUser(a);
    const client = await createApplication(a, owner);
    const bot = `Bot ${client.botToken}`;
    for (const app of [a, b]) {
      expect((await http(app).get('/v1/applications/@me').set('Authorization', bot)).status).toBe(
        200,
      );
    }
    const reset = await http(a)
      .post(`/v1/oauth2/applications/${client.id}/bot/reset-token`)
      .set('Authorization', owner.token);
    expect(reset.status).toBe(200);
    expect((await http(a).get('/v1/applications/@me').set('Authorization', bot)).status).toBe(401);
    await heard(b, 'bot', client.botToken);
    expect((await http(b).get('/v1/applications/@me').set('Authorization', bot)).status).toBe(401);
    const fresh = `Bot ${(reset.body as { token: string }).token}`;
    expect((await http(b).get('/v1/applications/@me').set('Authorization', fresh)).status).toBe(
      200,
    );
  });

  it('refuses an old client secret once it is reset, here at once and on the other instance', async () => {
    const owner = await registerUser(a);
    const client = await createApplication(a, owner);
    const tokens = await issueTokens(a, owner, client);
    const introspect = (app: ParleyApp, secret: string) =>
      http(app)
        .post('/v1/oauth2/introspect')
        .set('Authorization', basicAuth(client.id, secret))
        .type('form')
        .send({ token: tokens.access_token });
    for (const app of [a, b]) {
      const before = await introspect(app, client.clientSecret);
      expect(before.status).toBe(200);
      expect(before.body).toMatchObject({ active: true, client_id: client.id });
    }
    const reset = await http(a)
      .post(`/v1/oauth2/applications/${client.id}/client-secret/reset`)
      .set('Authorization', owner.token)
      .send({ password: owner.password });
    expect(reset.status).toBe(200);
    const here = await introspect(a, client.clientSecret);
    expect(here.status).toBe(401);
    expect(here.body).toMatchObject({ error: 'invalid_client' });
    // B learns it from the database's notification: poll (≤ 2 s) until it refuses, then check
    // that the new secret works there.
    let stale = await introspect(b, client.clientSecret);
    for (let i = 0; i < 400 && stale.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 5));
      stale = await introspect(b, client.clientSecret);
    }
    expect(stale.status).toBe(401);
    const fresh = await introspect(b, (reset.body as { client_secret: string }).client_secret);
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ active: true });
  });

  it('shows a profile change on the very next GET /users/@me of the instance that made it', async () => {
    const user = await registerUser(a);
    expect((await http(a).get('/v1/users/@me').set('Authorization', user.token)).status).toBe(200);
    const patch = await http(a)
      .patch('/v1/users/@me')
      .set('Authorization', user.token)
      .send({ global_name: 'Renamed' });
    expect(patch.status).toBe(200);
    const me = await http(a).get('/v1/users/@me').set('Authorization', user.token);
    expect(me.body).toMatchObject({ global_name: 'Renamed' });
  });

  it('never caches unknown credentials', async () => {
    const resolversB = b.get(CredentialResolvers);
    const before = resolversB.cache.size;
    for (let i = 0; i < 5; i++) {
      const bogus = `x${'A'.repeat(41)}${i}`;
      const res = await http(b).get('/v1/users/@me').set('Authorization', bogus);
      expect(res.status).toBe(401);
      expect(resolversB.isCached('session', bogus)).toBe(false);
    }
    expect(resolversB.cache.size).toBe(before);
  });
});
