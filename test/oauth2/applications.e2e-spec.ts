import type { ParleyApp } from '../../src/app.setup';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../src/config/app.config';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { createApplication, issueTokens, REDIRECT } from '../helpers/oauth2-factories';

const PNG_1PX =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

describe('OAuth2 applications and bots', () => {
  let app: ParleyApp;
  let db: DataSource;
  let owner: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    owner = await registerUser(app);
    stranger = await registerUser(app);
  });
  afterAll(() => app.close());

  it('creates an application with its bot; secrets are shown once', async () => {
    const res = await http(app)
      .post('/v1/oauth2/applications')
      .set('Authorization', owner.token)
      .send({ name: 'My Cool App!', redirect_uris: [REDIRECT, 'http://127.0.0.1:8080/cb'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name: 'My Cool App!',
      bot_public: true,
      bot_require_code_grant: false,
      redirect_uris: [REDIRECT, 'http://127.0.0.1:8080/cb'],
      interactions_endpoint_url: null,
      client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      bot: {
        id: expect.stringMatching(/^\d+$/),
        username: 'My_Cool_App',
        discriminator: expect.stringMatching(/^\d{4}$/),
        avatar: null,
        banner: null,
        bio: null,
        flags: 0,
        mfa_enabled: false,
        authenticator_types: [],
        token: expect.stringMatching(new RegExp(`^${res.body.id as string}\\.[A-Za-z0-9_-]{43}$`)),
      },
    });
    for (const path of ['/v1/oauth2/applications/@me', '/v1/users/@me/applications']) {
      const list = await http(app).get(path).set('Authorization', owner.token);
      expect(list.status).toBe(200);
      const mine = (list.body as Array<Record<string, unknown>>).find((a) => a.id === res.body.id);
      expect(mine).toMatchObject({ id: res.body.id, name: 'My Cool App!' });
      expect(mine).not.toHaveProperty('client_secret');
      expect(mine!.bot).not.toHaveProperty('token');
    }
    const one = await http(app)
      .get(`/v1/oauth2/applications/${res.body.id}`)
      .set('Authorization', owner.token);
    expect(one.status).toBe(200);
    expect(one.body).not.toHaveProperty('client_secret');
    expect(one.body.bot).not.toHaveProperty('token');
    // Nobody else's list shows it.
    const theirs = await http(app)
      .get('/v1/oauth2/applications/@me')
      .set('Authorization', stranger.token);
    expect(theirs.body).toEqual([]);
  });

  it('names the bot after the application: transliterated, capitals kept, `bot` when nothing is left', async () => {
    for (const [name, username] of [
      ['Привет Бот 2', 'Privet_Bot_2'],
      ['🙂', 'bot'],
    ]) {
      const res = await http(app)
        .post('/v1/oauth2/applications')
        .set('Authorization', owner.token)
        .send({ name });
      expect(res.status).toBe(200);
      expect(res.body.bot.username).toBe(username);
    }
  });

  it('validates names and redirect URIs with field paths', async () => {
    const res = await http(app)
      .post('/v1/oauth2/applications')
      .set('Authorization', owner.token)
      .send({
        name: 'ok',
        redirect_uris: [
          'https://ok.example/cb',
          'http://evil.example/cb',
          '/relative',
          'https://a.example/#x',
        ],
      });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_FORM_BODY');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([
      'redirect_uris.1',
      'redirect_uris.2',
      'redirect_uris.3',
    ]);
    const tooMany = await http(app)
      .post('/v1/oauth2/applications')
      .set('Authorization', owner.token)
      .send({ name: 'ok', redirect_uris: new Array(11).fill(REDIRECT) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0].path).toBe('redirect_uris');
    for (const name of ['', 'x'.repeat(101), 42]) {
      const bad = await http(app)
        .post('/v1/oauth2/applications')
        .set('Authorization', owner.token)
        .send({ name });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].path).toBe('name');
    }
  });

  it('keeps applications private to their owner (404) and updates them', async () => {
    const a = await createApplication(app, owner);
    for (const req of [
      http(app).get(`/v1/oauth2/applications/${a.id}`),
      http(app).patch(`/v1/oauth2/applications/${a.id}`).send({ name: 'x' }),
      http(app).delete(`/v1/oauth2/applications/${a.id}`),
      http(app).post(`/v1/oauth2/applications/${a.id}/client-secret/reset`).send({}),
      http(app).patch(`/v1/oauth2/applications/${a.id}/bot`).send({ bio: 'x' }),
      http(app).post(`/v1/oauth2/applications/${a.id}/bot/reset-token`),
    ]) {
      const res = await req.set('Authorization', stranger.token);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('UNKNOWN_APPLICATION');
    }
    const missing = await http(app)
      .get('/v1/oauth2/applications/not-a-number')
      .set('Authorization', owner.token);
    expect(missing.status).toBe(404);

    const patched = await http(app)
      .patch(`/v1/oauth2/applications/${a.id}`)
      .set('Authorization', owner.token)
      .send({ name: 'Renamed', bot_public: false, redirect_uris: null });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Renamed', bot_public: false, redirect_uris: [] });
    const badUri = await http(app)
      .patch(`/v1/oauth2/applications/${a.id}`)
      .set('Authorization', owner.token)
      .send({ redirect_uris: ['ftp://x.example'] });
    expect(badUri.status).toBe(400);
    expect(badUri.body.errors[0].path).toBe('redirect_uris.0');
  });

  it('shows the public view to any user', async () => {
    const a = await createApplication(app, owner);
    const res = await http(app)
      .get(`/v1/oauth2/applications/${a.id}/public`)
      .set('Authorization', stranger.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: a.id,
      name: expect.any(String),
      description: null,
      icon: null,
      bot_public: true,
      redirect_uris: [REDIRECT],
      scopes: [
        'identify',
        'email',
        'guilds',
        'guilds.join',
        'bot',
        'openid',
        'profile',
        'applications.commands.update',
      ],
      bot: expect.objectContaining({ id: a.botUserId }),
    });
    expect(res.body.bot).not.toHaveProperty('token');
    const unknown = await http(app)
      .get('/v1/oauth2/applications/1/public')
      .set('Authorization', stranger.token);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('UNKNOWN_APPLICATION');
  });

  it('deletes an application: 204, its bot user and its tokens are gone', async () => {
    const a = await createApplication(app, owner);
    const user = await registerUser(app);
    const t = await issueTokens(app, user, a);
    const del = await http(app)
      .delete(`/v1/oauth2/applications/${a.id}`)
      .set('Authorization', owner.token);
    expect(del.status).toBe(204);
    const me = await http(app)
      .get('/v1/oauth2/@me')
      .set('Authorization', `Bearer ${t.access_token}`);
    expect(me.status).toBe(401);
    const bot = await http(app)
      .get('/v1/applications/@me')
      .set('Authorization', `Bot ${a.botToken}`);
    expect(bot.status).toBe(401);
    const rows = await db.query('SELECT 1 FROM users WHERE id = $1', [a.botUserId]);
    expect(rows).toEqual([]);
    const again = await http(app)
      .get(`/v1/oauth2/applications/${a.id}`)
      .set('Authorization', owner.token);
    expect(again.status).toBe(404);
  });

  it('resets the client secret with the password or a fresh session', async () => {
    const a = await createApplication(app, owner);
    const fresh = await http(app)
      .post(`/v1/oauth2/applications/${a.id}/client-secret/reset`)
      .set('Authorization', owner.token)
      .send({});
    expect(fresh.status).toBe(200);
    expect(fresh.body.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fresh.body.client_secret).not.toBe(a.clientSecret);
    // The old secret no longer authenticates.
    const old = await http(app)
      .post('/v1/oauth2/introspect')
      .type('form')
      .send({ token: 'x', client_id: a.id, client_secret: a.clientSecret });
    expect(old.status).toBe(401);
    const current = await http(app)
      .post('/v1/oauth2/introspect')
      .type('form')
      .send({ token: 'x', client_id: a.id, client_secret: fresh.body.client_secret });
    expect(current.status).toBe(200);

    // A session whose last proof is older than 5 minutes needs the password.
    await db.query(
      "UPDATE auth_sessions SET proven_at = now() - interval '6 minutes' WHERE user_id = $1",
      [owner.userId],
    );
    const stale = await http(app)
      .post(`/v1/oauth2/applications/${a.id}/client-secret/reset`)
      .set('Authorization', owner.token)
      .send({});
    expect(stale.status).toBe(400);
    expect(stale.body.errors).toEqual([
      expect.objectContaining({ path: 'password', code: 'PASSWORD_REQUIRED' }),
    ]);
    const wrong = await http(app)
      .post(`/v1/oauth2/applications/${a.id}/client-secret/reset`)
      .set('Authorization', owner.token)
      .send({ password: 'not-the-password' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors).toEqual([
      expect.objectContaining({ path: 'password', code: 'PASSWORD_DOES_NOT_MATCH' }),
    ]);
    const withPassword = await http(app)
      .post(`/v1/oauth2/applications/${a.id}/client-secret/reset`)
      .set('Authorization', owner.token)
      .send({ password: owner.password });
    expect(withPassword.status).toBe(200);
    expect(withPassword.body.client_secret).not.toBe(fresh.body.client_secret);
    await db.query('UPDATE auth_sessions SET created_at = now() WHERE user_id = $1', [
      owner.userId,
    ]);
  });

  it('bot tokens: /applications/@me, reset invalidates the old token at once, user routes refuse bots', async () => {
    const a = await createApplication(app, owner);
    const me = await http(app)
      .get('/v1/applications/@me')
      .set('Authorization', `Bot ${a.botToken}`);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: a.id,
      bot_public: true,
      bot_require_code_grant: false,
      description: null,
      icon: null,
      flags: 0,
      bot: { id: a.botUserId },
    });
    expect(me.body.bot).not.toHaveProperty('token');

    // GET /users/@me is the bot user (Discord's login call); a route for users only refuses bots.
    const self = await http(app).get('/v1/users/@me').set('Authorization', `Bot ${a.botToken}`);
    expect(self.status).toBe(200);
    expect(self.body).toMatchObject({ id: a.botUserId, bot: true, email: null });
    const users = await http(app)
      .get('/v1/users/@me/applications')
      .set('Authorization', `Bot ${a.botToken}`);
    expect(users.status).toBe(403);
    expect(users.body.code).toBe('ACCESS_DENIED');

    const reset = await http(app)
      .post(`/v1/oauth2/applications/${a.id}/bot/reset-token`)
      .set('Authorization', owner.token);
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({
      token: expect.stringMatching(new RegExp(`^${a.id}\\.[A-Za-z0-9_-]{43}$`)),
      bot: expect.objectContaining({ id: a.botUserId, token: reset.body.token }),
    });
    const old = await http(app)
      .get('/v1/applications/@me')
      .set('Authorization', `Bot ${a.botToken}`);
    expect(old.status).toBe(401);
    expect(old.body.code).toBe('UNAUTHORIZED');
    const fresh = await http(app)
      .get('/v1/applications/@me')
      .set('Authorization', `Bot ${reset.body.token as string}`);
    expect(fresh.status).toBe(200);
    // A token whose id part names another application does not work.
    const other = await createApplication(app, owner);
    const secret = (reset.body.token as string).split('.')[1];
    const swapped = await http(app)
      .get('/v1/applications/@me')
      .set('Authorization', `Bot ${other.id}.${secret}`);
    expect(swapped.status).toBe(401);
    // A session token is not a bot.
    const session = await http(app).get('/v1/applications/@me').set('Authorization', owner.token);
    expect(session.status).toBe(403);
  });

  it('updates the bot profile (avatar written to disk, flags, name)', async () => {
    const a = await createApplication(app, owner);
    const res = await http(app)
      .patch(`/v1/oauth2/applications/${a.id}/bot`)
      .set('Authorization', owner.token)
      .send({
        avatar: `data:image/png;base64,${PNG_1PX}`,
        bio: 'I am a bot',
        bot_flags: 16 | 32,
        username: 'helper_bot',
        discriminator: '0420',
      });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: a.botUserId,
      username: 'helper_bot',
      discriminator: '0420',
      avatar: expect.stringMatching(/^[0-9a-f]{32}$/),
      banner: null,
      bio: 'I am a bot',
    });
    const blobDir = app.get(AppConfig).blobDir;
    const file = join(
      blobDir,
      'assets',
      'avatars',
      a.botUserId,
      `${res.body.avatar as string}.png`,
    );
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file).equals(Buffer.from(PNG_1PX, 'base64'))).toBe(true);
    const me = await http(app)
      .get('/v1/applications/@me')
      .set('Authorization', `Bot ${a.botToken}`);
    expect(me.body.bot).toMatchObject({ flags: 48, username: 'helper_bot', bio: 'I am a bot' });

    // The same name#discriminator for another bot is refused.
    const b = await createApplication(app, owner);
    const taken = await http(app)
      .patch(`/v1/oauth2/applications/${b.id}/bot`)
      .set('Authorization', owner.token)
      .send({ username: 'HELPER_bot', discriminator: '0420' });
    expect(taken.status).toBe(400);
    expect(taken.body.errors[0]).toMatchObject({
      path: 'discriminator',
      code: 'DISCRIMINATOR_TAKEN',
    });
    // …but the name alone gets a free discriminator.
    const renamed = await http(app)
      .patch(`/v1/oauth2/applications/${b.id}/bot`)
      .set('Authorization', owner.token)
      .send({ username: 'helper_bot', avatar: null });
    expect(renamed.status).toBe(200);
    expect(renamed.body.discriminator).not.toBe('0420');

    const bad = await http(app)
      .patch(`/v1/oauth2/applications/${a.id}/bot`)
      .set('Authorization', owner.token)
      .send({
        avatar: `data:image/svg+xml;base64,${PNG_1PX}`,
        banner: 'https://example.com/x.png',
        bot_flags: 1,
        username: 'no spaces',
      });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['username']);
    const badImages = await http(app)
      .patch(`/v1/oauth2/applications/${a.id}/bot`)
      .set('Authorization', owner.token)
      .send({
        avatar: `data:image/svg+xml;base64,${PNG_1PX}`,
        banner: 'https://example.com/x.png',
        bot_flags: 1,
      });
    expect(badImages.status).toBe(400);
    expect(badImages.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'avatar',
      'banner',
      'bot_flags',
    ]);
  });

  it('stores no plaintext secret in the database', async () => {
    const a = await createApplication(app, owner);
    const user = await registerUser(app);
    const t = await issueTokens(app, user, a);
    const botSecret = a.botToken.split('.')[1];
    const secrets = [a.clientSecret, a.botToken, botSecret, t.access_token, t.refresh_token];
    const tables = await db.query<Array<{ table_name: string }>>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    expect(tables.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['oauth2_applications', 'oauth2_tokens', 'oauth2_codes']),
    );
    for (const { table_name } of tables) {
      const rows = await db.query<Array<{ t: string }>>(
        `SELECT t::text AS t FROM "${table_name}" t`,
      );
      const dump = rows.map((r) => r.t).join('\n');
      for (const s of secrets) expect(dump).not.toContain(s);
      // Nor as hex (bytea renders as \x…) of the raw value.
      for (const s of secrets) expect(dump).not.toContain(Buffer.from(s).toString('hex'));
    }
  });

  describe('401 without credentials', () => {
    it.each([
      ['post', '/v1/oauth2/applications'],
      ['get', '/v1/oauth2/applications/@me'],
      ['get', '/v1/users/@me/applications'],
      ['get', '/v1/applications/@me'],
      ['get', '/v1/oauth2/applications/1'],
      ['get', '/v1/oauth2/applications/1/public'],
      ['patch', '/v1/oauth2/applications/1'],
      ['delete', '/v1/oauth2/applications/1'],
      ['post', '/v1/oauth2/applications/1/client-secret/reset'],
      ['patch', '/v1/oauth2/applications/1/bot'],
      ['post', '/v1/oauth2/applications/1/bot/reset-token'],
    ] as const)('%s %s', async (method, path) => {
      const res = await http(app)[method](path).send({});
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    });
  });
});
