import type { ParleyApp } from './../src/app.setup';
import { createTestApp, http, RELAXED_LIMITS } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import { createGuild, createWebhook, type TestGuild } from './helpers/guild-factories';
import { createApplication, installBot, type TestApplication } from './helpers/oauth2-factories';

const UNKNOWN = '1234567890123456789';

/**
 * Discord's path layout as a dialect (DESIGN.md "The Discord dialect"): `/api/v10` and `/api/v9`
 * reach the same handlers as `/v1` and answer in Discord's forms; `/v1` keeps the envelope.
 */
describe('the Discord dialect (/api/v10, /api/v9)', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let g: TestGuild;
  let application: TestApplication;
  let bot: string;

  beforeAll(async () => {
    app = await createTestApp({
      // The webhook-execute bucket is tiny so that one test can meet a 429.
      env: { RATE_LIMIT_OVERRIDES: `${RELAXED_LIMITS},webhook:execute=1/60s` },
    });
    owner = await registerUser(app);
    g = await createGuild(app, owner.token);
    application = await createApplication(app, owner);
    await installBot(app, owner, application, g.guildId);
    bot = `Bot ${application.botToken}`;
  });

  afterAll(() => app?.close());

  it.each(['/api/v10', '/api/v9', '/v1'])(
    'GET %s/users/@me with a bot token answers the bot user, as exactly application/json',
    async (base) => {
      const res = await http(app).get(`${base}/users/@me`).set('Authorization', bot).expect(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body).toMatchObject({
        id: application.botUserId,
        bot: true,
        verified: true,
        mfa_enabled: false,
        email: null,
        flags: 0,
        public_flags: 0,
      });
    },
  );

  it('answers 401 in Discord’s form on its paths and as the envelope on /v1', async () => {
    const discord = await http(app).get('/api/v10/users/@me').expect(401);
    expect(discord.body).toEqual({ code: 0, message: '401: Unauthorized' });
    expect(discord.headers['content-type']).toBe('application/json');
    const v1 = await http(app).get('/v1/users/@me').expect(401);
    expect(v1.body).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('GET /oauth2/applications/@me: a bot gets Discord’s application object, a user the list', async () => {
    const res = await http(app)
      .get('/api/v10/oauth2/applications/@me')
      .set('Authorization', bot)
      .expect(200);
    expect(res.body).toEqual({
      id: application.id,
      name: application.body.name,
      icon: null,
      description: '',
      summary: '',
      bot_public: true,
      bot_require_code_grant: false,
      owner: expect.objectContaining({ id: owner.userId, username: expect.any(String) }),
      bot: expect.objectContaining({ id: application.botUserId, bot: true }),
      verify_key: expect.stringMatching(/^[0-9a-f]{64}$/),
      flags: 0,
      rpc_origins: [],
      team: null,
      interactions_endpoint_url: null,
      redirect_uris: ['https://client.example/callback'],
    });
    // The key is the application's own and stays: asked again (any path), the same.
    const again = await http(app)
      .get('/v1/oauth2/applications/@me')
      .set('Authorization', bot)
      .expect(200);
    expect(again.body.verify_key).toBe(res.body.verify_key);
    const list = await http(app)
      .get('/api/v10/oauth2/applications/@me')
      .set('Authorization', owner.token)
      .expect(200);
    expect(list.body.map((a: { id: string }) => a.id)).toEqual([application.id]);
  });

  it('404s carry Discord’s codes: Unknown Channel 10003, Unknown Message 10008', async () => {
    const channel = await http(app)
      .get(`/api/v10/channels/${UNKNOWN}`)
      .set('Authorization', bot)
      .expect(404);
    expect(channel.body).toEqual({ code: 10003, message: 'Unknown Channel' });
    const message = await http(app)
      .get(`/api/v10/channels/${g.channelId}/messages/${UNKNOWN}`)
      .set('Authorization', bot)
      .expect(404);
    expect(message.body).toEqual({ code: 10008, message: 'Unknown Message' });
    const v1 = await http(app).get(`/v1/channels/${UNKNOWN}`).set('Authorization', bot).expect(404);
    expect(v1.body).toMatchObject({ code: 'UNKNOWN_CHANNEL' });
  });

  it('a route that is not Discord’s is not on its paths: 404 in Discord’s form', async () => {
    const res = await http(app).get('/api/v10/auth/sessions').set('Authorization', owner.token);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 0, message: '404: Not Found' });
    await http(app).get('/api/v11/users/@me').set('Authorization', bot).expect(404);
  });

  it('form errors are 50035 with Discord’s nested errors', async () => {
    const res = await http(app)
      .post(`/api/v10/channels/${g.channelId}/messages`)
      .set('Authorization', bot)
      .send({ content: 'x'.repeat(2001) })
      .expect(400);
    expect(res.body).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: {
        content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: expect.any(String) }] },
      },
    });
    const json = await http(app)
      .post(`/api/v10/channels/${g.channelId}/messages`)
      .set('Authorization', bot)
      .set('Content-Type', 'application/json')
      .send('{"content": ')
      .expect(400);
    expect(json.body).toEqual({ code: 50109, message: 'The request body contains invalid JSON.' });
  });

  it('reads snowflakes sent as JSON numbers beyond 2^53 without losing a digit', async () => {
    const hook = await createWebhook(app, owner.token, g.channelId);
    const created = await http(app)
      .post(`/v1/guilds/${g.guildId}/channels`)
      .set('Authorization', owner.token)
      .send({ name: 'second' })
      .expect(201);
    const target = created.body.id as string;
    expect(Number.isSafeInteger(Number(target))).toBe(false);
    const res = await http(app)
      .patch(`/api/v10/webhooks/${hook.id}`)
      .set('Authorization', owner.token)
      .set('Content-Type', 'application/json')
      .send(`{"name": "moved 12345678901234567890", "channel_id": ${target}}`)
      .expect(200);
    expect(res.body).toMatchObject({ channel_id: target, name: 'moved 12345678901234567890' });
  });

  it('a 429 is Discord’s: body, Via, and the rate-limit headers discord.py reads', async () => {
    const hook = await createWebhook(app, owner.token, g.channelId);
    const url = `/api/v10/webhooks/${hook.id}/${hook.token}`;
    const first = await http(app).post(url).send({ content: 'one' }).expect(204);
    expect(first.headers['x-ratelimit-limit']).toBe('1');
    expect(first.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(first.headers['x-ratelimit-reset-after'])).toBeGreaterThan(0);
    expect(first.headers['x-ratelimit-bucket']).toBe('webhook:execute');
    expect(first.headers['x-ratelimit-global']).toBeUndefined();
    const limited = await http(app).post(url).send({ content: 'two' }).expect(429);
    expect(limited.body).toEqual({
      message: 'You are being rate limited.',
      retry_after: expect.any(Number),
      global: false,
    });
    expect(limited.headers.via).toBe('1.1 parley');
    expect(limited.headers['x-ratelimit-scope']).toBe('shared');
    expect(limited.headers['x-ratelimit-global']).toBeUndefined();
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
