import { Client, ClientApplication, DiscordAPIError } from 'discord.js';
import type { ParleyApp } from '../../src/app.setup';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import {
  startEndpoint,
  verifySignature,
  verifyingMiddleware,
  type TestEndpoint,
} from '../helpers/interactions-endpoint';
import { createApplication, type TestApplication } from '../helpers/oauth2-factories';

const NOT_VERIFIED = 'APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID';
const DISCORD_MESSAGE = 'The specified interactions endpoint url could not be verified.';

/** The application's `verify_key`, as its bot reads it (Discord's application object). */
async function verifyKeyOf(app: ParleyApp, client: TestApplication): Promise<string> {
  const res = await http(app)
    .get('/api/v10/oauth2/applications/@me')
    .set('Authorization', `Bot ${client.botToken}`);
  expect(res.status).toBe(200);
  return res.body.verify_key as string;
}

/** A bot built as `discord-interactions` documents it: verifyKeyMiddleware, then its routes. */
function verifyingBot(verifyKey: string): Promise<TestEndpoint> {
  return startEndpoint((e) => {
    e.post('/interactions', verifyingMiddleware(verifyKey), (_req, res) => {
      res.json({ type: 4, data: { content: 'hello' } });
    });
  });
}

function setUrl(app: ParleyApp, owner: TestUser, client: TestApplication, url: unknown) {
  return http(app)
    .patch(`/v1/oauth2/applications/${client.id}`)
    .set('Authorization', owner.token)
    .send({ interactions_endpoint_url: url });
}

function expectNotVerified(res: { status: number; body: Record<string, any> }, why: RegExp) {
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('INVALID_FORM_BODY');
  expect(res.body.errors).toEqual([
    { path: 'interactions_endpoint_url', code: NOT_VERIFIED, message: expect.any(String) },
  ]);
  const message = res.body.errors[0].message as string;
  expect(message.startsWith(DISCORD_MESSAGE)).toBe(true);
  expect(message.slice(DISCORD_MESSAGE.length)).toMatch(why);
}

describe('interactions endpoint URL (OUTBOUND_ALLOW_PRIVATE=true)', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let stranger: TestUser;
  const endpoints: TestEndpoint[] = [];
  const endpoint = async (e: Promise<TestEndpoint>) => {
    endpoints.push(await e);
    return endpoints[endpoints.length - 1];
  };

  beforeAll(async () => {
    app = await createTestApp({ env: { OUTBOUND_ALLOW_PRIVATE: 'true' } });
    await app.listen(0, '127.0.0.1');
    owner = await registerUser(app);
    stranger = await registerUser(app);
  });
  afterAll(async () => {
    await Promise.all(endpoints.map((e) => e.close()));
    await app.close();
  });

  it('accepts a discord-interactions bot, shows the URL, and clears it with null or ""', async () => {
    const client = await createApplication(app, owner);
    const verifyKey = await verifyKeyOf(app, client);
    const bot = await endpoint(verifyingBot(verifyKey));

    const set = await setUrl(app, owner, client, bot.url);
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: client.id, interactions_endpoint_url: bot.url });

    // A signed PING, then the same PING with a signature that does not verify.
    expect(bot.received).toHaveLength(2);
    const [ping, forged] = bot.received;
    expect(JSON.parse(ping.body)).toEqual({
      id: expect.stringMatching(/^\d+$/),
      application_id: client.id,
      type: 1,
      token: expect.any(String),
      version: 1,
    });
    expect(ping.headers['content-type']).toBe('application/json');
    expect(ping.headers['user-agent']).toMatch(/^Parley-Interactions\/1\.0 /);
    expect(verifySignature(verifyKey, ping.headers, ping.body)).toBe(true);
    const timestamp = Number(ping.headers['x-signature-timestamp']);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(10);
    expect(forged.body).toBe(ping.body);
    expect(verifySignature(verifyKey, forged.headers, forged.body)).toBe(false);

    const one = await http(app)
      .get(`/v1/oauth2/applications/${client.id}`)
      .set('Authorization', owner.token);
    expect(one.body.interactions_endpoint_url).toBe(bot.url);
    const asBot = await http(app)
      .get('/api/v10/oauth2/applications/@me')
      .set('Authorization', `Bot ${client.botToken}`);
    expect(asBot.body.interactions_endpoint_url).toBe(bot.url);
    const current = await http(app)
      .get('/api/v10/applications/@me')
      .set('Authorization', `Bot ${client.botToken}`);
    expect(current.body.interactions_endpoint_url).toBe(bot.url);

    for (const cleared of [null, '']) {
      expect((await setUrl(app, owner, client, bot.url)).status).toBe(200);
      const res = await setUrl(app, owner, client, cleared);
      expect(res.status).toBe(200);
      expect(res.body.interactions_endpoint_url).toBeNull();
    }
    // Other fields alone leave the URL as it is, without a new check.
    expect((await setUrl(app, owner, client, bot.url)).status).toBe(200);
    const before = bot.received.length;
    const renamed = await http(app)
      .patch(`/v1/oauth2/applications/${client.id}`)
      .set('Authorization', owner.token)
      .send({ name: 'Renamed' });
    expect(renamed.body).toMatchObject({ name: 'Renamed', interactions_endpoint_url: bot.url });
    expect(bot.received).toHaveLength(before);
  });

  it('refuses an endpoint that answers PING without checking the signature', async () => {
    const client = await createApplication(app, owner);
    const trusting = await endpoint(
      startEndpoint((e) => e.post('/interactions', (_req, res) => void res.json({ type: 1 }))),
    );
    const res = await setUrl(app, owner, client, trusting.url);
    expectNotVerified(res, /invalid signature was answered 200, not 401/);
    // Discord's dialect: the same error under the field.
    const discord = await http(app)
      .patch(`/api/v10/oauth2/applications/${client.id}`)
      .set('Authorization', owner.token)
      .send({ interactions_endpoint_url: trusting.url });
    expect(discord.status).toBe(400);
    expect(discord.body).toMatchObject({
      code: 50035,
      errors: {
        interactions_endpoint_url: {
          _errors: [{ code: NOT_VERIFIED, message: expect.stringContaining(DISCORD_MESSAGE) }],
        },
      },
    });
    const after = await http(app)
      .get(`/v1/oauth2/applications/${client.id}`)
      .set('Authorization', owner.token);
    expect(after.body.interactions_endpoint_url).toBeNull();
  });

  it('refuses endpoints that are down, slow, redirect, answer too much or the wrong thing', async () => {
    const client = await createApplication(app, owner);
    const verifyKey = await verifyKeyOf(app, client);
    const good = await endpoint(verifyingBot(verifyKey));
    const closed = await endpoint(startEndpoint(() => undefined));
    await closed.close();
    const stalled = await endpoint(startEndpoint((e) => e.post('/interactions', () => undefined)));
    const redirecting = await endpoint(
      startEndpoint((e) => e.post('/interactions', (_req, res) => res.redirect(307, good.url))),
    );
    const huge = await endpoint(
      startEndpoint((e) =>
        e.post('/interactions', (_req, res) => {
          res.json({ type: 1, padding: 'x'.repeat(200 * 1024) });
        }),
      ),
    );

    expectNotVerified(await setUrl(app, owner, client, closed.url), /ECONNREFUSED/);
    const started = Date.now();
    expectNotVerified(await setUrl(app, owner, client, stalled.url), /within 3000 ms/);
    expect(Date.now() - started).toBeLessThan(6_000);
    expectNotVerified(await setUrl(app, owner, client, redirecting.url), /307; redirects/);
    expect(good.received).toHaveLength(0);
    expectNotVerified(await setUrl(app, owner, client, huge.url), /over 65536 bytes/);
    // verifyKeyMiddleware answers PINGs itself: a route that sees one answers something else.
    const pingHandledByRoute = await endpoint(
      startEndpoint((e) =>
        e.post('/interactions', (_req, res) => res.status(200).json({ type: 4 })),
      ),
    );
    expectNotVerified(await setUrl(app, owner, client, pingHandledByRoute.url), /not answered/);

    const malformed = await setUrl(app, owner, client, 'not a url');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0]).toMatchObject({
      path: 'interactions_endpoint_url',
      code: 'URL_TYPE_INVALID_URL',
    });
    const scheme = await setUrl(app, owner, client, 'ftp://127.0.0.1/interactions');
    expect(scheme.body.errors[0]).toMatchObject({ code: 'URL_TYPE_INVALID_SCHEME' });
    const long = await setUrl(app, owner, client, `https://example.com/${'a'.repeat(2100)}`);
    expect(long.status).toBe(400);
    expect(long.body.errors[0]).toMatchObject({ path: 'interactions_endpoint_url' });
  });

  it('PATCH /applications/@me: the bot sets its own endpoint (Discord’s Edit Current Application)', async () => {
    const client = await createApplication(app, owner);
    const bot = await endpoint(verifyingBot(await verifyKeyOf(app, client)));
    for (const prefix of ['/v1', '/api/v10']) {
      const res = await http(app)
        .patch(`${prefix}/applications/@me`)
        .set('Authorization', `Bot ${client.botToken}`)
        .send({ interactions_endpoint_url: bot.url, description: 'Answers slash commands.' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: client.id,
        description: 'Answers slash commands.',
        interactions_endpoint_url: bot.url,
        flags: 0,
      });
    }
    const cleared = await http(app)
      .patch('/api/v10/applications/@me')
      .set('Authorization', `Bot ${client.botToken}`)
      .send({ interactions_endpoint_url: null, description: '' });
    expect(cleared.body).toMatchObject({ description: null, interactions_endpoint_url: null });
    const badFlags = await http(app)
      .patch('/v1/applications/@me')
      .set('Authorization', `Bot ${client.botToken}`)
      .send({ flags: 1 });
    expect(badFlags.status).toBe(400);
    expect(badFlags.body.errors[0]).toMatchObject({ path: 'flags', code: 'BASE_TYPE_CHOICES' });
  });

  it('discord.js: client.application.edit({ interactionsEndpointURL }), unmodified', async () => {
    const client = await createApplication(app, owner);
    const bot = await endpoint(verifyingBot(await verifyKeyOf(app, client)));
    const trusting = await endpoint(
      startEndpoint((e) => e.post('/interactions', (_req, res) => void res.json({ type: 1 }))),
    );
    const port = (app.getHttpServer().address() as AddressInfo).port;
    const djs = new Client({ intents: [], rest: { api: `http://127.0.0.1:${port}/api` } });
    djs.rest.setToken(client.botToken);
    // The object discord.js builds from READY; the REST call needs no gateway session.
    const Ctor = ClientApplication as unknown as new (
      c: Client,
      d: { id: string },
    ) => ClientApplication;
    const application = new Ctor(djs, { id: client.id });
    try {
      await application.edit({ interactionsEndpointURL: bot.url });
      expect(application.interactionsEndpointURL).toBe(bot.url);
      const refused: unknown = await application
        .edit({ interactionsEndpointURL: trusting.url })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(DiscordAPIError);
      expect(refused).toMatchObject({
        code: 50035,
        status: 400,
        rawError: {
          errors: { interactions_endpoint_url: { _errors: [{ code: NOT_VERIFIED }] } },
        },
      });
      await application.fetch();
      expect(application.interactionsEndpointURL).toBe(bot.url);
    } finally {
      await djs.destroy();
    }
  });

  it('answers 401 without a token, and 404 for another user’s application', async () => {
    const client = await createApplication(app, owner);
    const noAuth = await http(app)
      .patch('/v1/applications/@me')
      .send({ interactions_endpoint_url: null });
    expect(noAuth.status).toBe(401);
    const userToken = await http(app)
      .patch('/v1/applications/@me')
      .set('Authorization', owner.token)
      .send({ interactions_endpoint_url: null });
    expect([401, 403]).toContain(userToken.status);
    const anonymous = await http(app)
      .patch(`/v1/oauth2/applications/${client.id}`)
      .send({ interactions_endpoint_url: null });
    expect(anonymous.status).toBe(401);
    const theirs = await http(app)
      .patch(`/v1/oauth2/applications/${client.id}`)
      .set('Authorization', stranger.token)
      .send({ interactions_endpoint_url: 'http://127.0.0.1:1/interactions' });
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe('UNKNOWN_APPLICATION');
  });
});

describe('interactions endpoint URL (private addresses refused: the default)', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let client: TestApplication;
  let bot: TestEndpoint;
  let hits = 0;
  const raw = createServer((_req, res) => {
    hits += 1;
    res.end('{"type":1}');
  });

  beforeAll(async () => {
    app = await createTestApp({ env: { OUTBOUND_ALLOW_PRIVATE: undefined } });
    owner = await registerUser(app);
    client = await createApplication(app, owner);
    bot = await verifyingBot(await verifyKeyOf(app, client));
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await bot.close();
    raw.close();
    await app.close();
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['localhost', 'loopback'],
    ['[::1]', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['[fd00::1]', 'unique local'],
  ])('refuses http://%s (%s) before connecting', async (host, kind) => {
    const port = host === 'localhost' || host.includes('127.0.0.1') ? bot.port : 9;
    const res = await setUrl(app, owner, client, `http://${host}:${port}/interactions`);
    expectNotVerified(res, new RegExp(`is an? ${kind} address.*OUTBOUND_ALLOW_PRIVATE`));
    expect(bot.received).toHaveLength(0);
  });

  it('refuses a host name resolving to loopback on every connection, not only the first', async () => {
    const port = (raw.address() as AddressInfo).port;
    for (let i = 0; i < 3; i++) {
      expectNotVerified(
        await setUrl(app, owner, client, `http://localhost:${port}/interactions`),
        /loopback/,
      );
    }
    expect(hits).toBe(0);
  });
});
