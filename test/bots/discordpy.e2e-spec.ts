import type { ParleyApp } from '../../src/app.setup';
import { createTestApp, http, RELAXED_LIMITS } from '../helpers/app';
import { runDiscordPy, reportOf, type BotReport } from '../helpers/discordpy';
import { registerUser, type TestUser } from '../helpers/factories';
import { createGuild, type TestGuild } from '../helpers/guild-factories';
import {
  createApplication,
  installBot,
  MESSAGE_CONTENT_INTENT_FLAG,
  setApplicationFlags,
  type TestApplication,
} from '../helpers/oauth2-factories';
import { serverPort } from '../helpers/ports';

/**
 * discord.py 2.2 (Debian's python3-discord), unmodified: test/bots/discordpy_bot.py sets only its
 * base URLs — `Route.BASE` to Parley's Discord paths and, since discord.py 2.2's `Client` has the
 * gateway's address built in, `DiscordWebSocket.DEFAULT_GATEWAY`. It logs in (GET /users/@me with
 * its bot token, then GET /oauth2/applications/@me), connects with zlib-stream, and works through
 * REST.
 */
describe('bots: an unmodified discord.py bot', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let g: TestGuild;
  let application: TestApplication;
  let run: { reports: BotReport[]; code: number | null; stderr: string };

  beforeAll(async () => {
    const port = await serverPort();
    app = await createTestApp({ env: { GATEWAY_URL: `ws://127.0.0.1:${port}/gateway` } });
    await app.listen(port, '127.0.0.1');
    owner = await registerUser(app);
    g = await createGuild(app, owner.token);
    application = await createApplication(app, owner);
    await setApplicationFlags(app, owner, application, MESSAGE_CONTENT_INTENT_FLAG);
    await installBot(app, owner, application, g.guildId);
    run = await runDiscordPy('discordpy_bot.py', {
      PARLEY_API: `http://127.0.0.1:${port}/api/v10`,
      PARLEY_GATEWAY: `ws://127.0.0.1:${port}/gateway`,
      BOT_TOKEN: application.botToken,
      CHANNEL_ID: g.channelId,
    });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('logs in and reaches on_ready with its guild and channels cached', () => {
    expect(run.reports.filter((r) => r.step === 'error')).toEqual([]);
    expect(reportOf(run, 'ready')).toEqual({
      step: 'ready',
      user_id: application.botUserId,
      bot: true,
      application_id: application.id,
      owner_id: owner.userId,
      verify_key: expect.stringMatching(/^[0-9a-f]{64}$/),
      guilds: [{ id: g.guildId, channels: ['general'] }],
    });
    expect(run.code).toBe(0);
  });

  it('fetches a member (its roles: @everyone) and a user', () => {
    expect(reportOf(run, 'fetched')).toEqual({
      step: 'fetched',
      member_id: owner.userId,
      member_roles: [g.guildId],
      joined: true,
      user_name: owner.username,
    });
  });

  it('sends, fetches, replies to, edits and deletes a message; a deleted one is discord.NotFound 10008', () => {
    expect(reportOf(run, 'sent')).toMatchObject({
      content: 'hello from discord.py',
      author_id: application.botUserId,
    });
    expect(reportOf(run, 'replied')).toEqual({
      step: 'replied',
      type: 19,
      reference: reportOf(run, 'sent').id,
      resolved: 'hello from discord.py',
    });
    expect(reportOf(run, 'edited')).toEqual({ step: 'edited', content: 'edited by discord.py' });
    expect(reportOf(run, 'deleted')).toEqual({
      step: 'deleted',
      found: false,
      status: 404,
      code: 10008,
    });
  });

  it('gets a validation error as discord.HTTPException with Discord’s code and field', () => {
    const invalid = reportOf(run, 'invalid');
    expect(invalid).toMatchObject({ raised: true, status: 400, code: 50035 });
    // discord.py flattens Discord's nested `errors` into "In content: …".
    expect(invalid.text).toMatch(/In content: /);
  });
});

describe('bots: discord.py waits out a 429', () => {
  let setup: ParleyApp;
  let limited: ParleyApp;

  afterAll(async () => {
    await limited?.close();
    await setup?.close();
  });

  it('sends a burst beyond the global limit: every 429 waited out, every message stored', async () => {
    // Set up through one instance with the usual limits; the bot talks to a second instance on
    // the same database whose global limit (per caller) is 4 requests in 2 s.
    setup = await createTestApp();
    const owner = await registerUser(setup);
    const g = await createGuild(setup, owner.token);
    const application = await createApplication(setup, owner);
    await setApplicationFlags(setup, owner, application, MESSAGE_CONTENT_INTENT_FLAG);
    await installBot(setup, owner, application, g.guildId);
    const port = await serverPort();
    limited = await createTestApp({
      env: {
        GATEWAY_URL: `ws://127.0.0.1:${port}/gateway`,
        RATE_LIMIT_OVERRIDES: `${RELAXED_LIMITS},global=4/2s`,
      },
    });
    await limited.listen(port, '127.0.0.1');
    const burst = await runDiscordPy('discordpy_bot.py', {
      MODE: 'burst',
      PARLEY_API: `http://127.0.0.1:${port}/api/v10`,
      PARLEY_GATEWAY: `ws://127.0.0.1:${port}/gateway`,
      BOT_TOKEN: application.botToken,
      CHANNEL_ID: g.channelId,
    });
    expect(burst.reports.filter((r) => r.step === 'error')).toEqual([]);
    const report = reportOf(burst, 'burst');
    expect(report.sent).toBe(6);
    expect(report.rate_limited as number).toBeGreaterThanOrEqual(1);
    const stored = await http(setup)
      .get(`/v1/channels/${g.channelId}/messages?limit=50`)
      .set('Authorization', owner.token)
      .expect(200);
    const contents = (stored.body as Array<{ content: string }>).map((m) => m.content).sort();
    expect(contents).toEqual(['burst 0', 'burst 1', 'burst 2', 'burst 3', 'burst 4', 'burst 5']);
  }, 120_000);
});
