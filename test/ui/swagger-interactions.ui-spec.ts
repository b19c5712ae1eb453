import type { Browser } from 'playwright-core';
import type { ParleyApp } from '../../src/app.setup';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { GatewayClient } from '../helpers/gateway-client';
import { createGuild, type TestGuild } from '../helpers/guild-factories';
import { createApplication, installBot, type TestApplication } from '../helpers/oauth2-factories';
import { serverPort } from '../helpers/ports';
import { launchChromium, SwaggerUi } from './swagger-ui';

/**
 * An admin invokes a bot's slash command from Swagger UI (issue 29): authorize with a session
 * token, open *Interactions → POST /v1/interactions*, put the guild, channel, application and
 * command ids into the pre-filled example, Execute — 204, and the bot (a raw gateway session that
 * answers its INTERACTION_CREATE through the callback) posts its answer in the channel.
 */
describe('Swagger UI invokes a bot’s command (headless Chromium)', () => {
  let app: ParleyApp;
  let browser: Browser;
  let base: string;
  let owner: TestUser;
  let g: TestGuild;
  let bot: TestApplication;
  let botSession: GatewayClient;
  let commandId: string;

  beforeAll(async () => {
    const port = await serverPort();
    base = `http://127.0.0.1:${port}`;
    app = await createTestApp({ env: { PUBLIC_URL: base } });
    await app.listen(port, '127.0.0.1');
    owner = await registerUser(app);
    g = await createGuild(app, owner.token);
    bot = await createApplication(app, owner);
    await installBot(app, owner, bot, g.guildId);
    const created = await http(app)
      .post(`/api/v10/applications/${bot.id}/guilds/${g.guildId}/commands`)
      .set('Authorization', `Bot ${bot.botToken}`)
      .send({
        name: 'echo',
        description: 'Echo text',
        options: [{ name: 'text', description: 'Text', type: 3 }],
      });
    expect(created.status).toBe(201);
    commandId = created.body.id as string;
    botSession = await GatewayClient.connect(`ws://127.0.0.1:${port}/gateway`);
    botSession.identify(`Bot ${bot.botToken}`, { intents: 1 });
    await botSession.dispatch('READY');
    browser = await launchChromium();
  });

  afterAll(async () => {
    botSession?.close();
    await browser?.close();
    await app?.close();
  });

  it('POST /v1/interactions from the example: 204, the bot answers in the channel', async () => {
    const ui = await SwaggerUi.open(browser, base);
    await ui.authorizeApiKey('sessionToken', owner.token);
    const op = await ui.tryItOut('Interactions', 'create_interaction');
    await op.editBody<{ data: Record<string, unknown> }>((example) => ({
      ...example,
      application_id: bot.id,
      guild_id: g.guildId,
      channel_id: g.channelId,
      data: { ...example.data, id: commandId },
    }));
    const at = botSession.frames.length;
    const shown = await op.execute();
    expect({ status: shown.status, body: shown.body }).toMatchObject({ status: '204' });
    const created = await botSession.next((f) => f.t === 'INTERACTION_CREATE', 5_000, at);
    const value = created.d.data.options[0].value as string;
    const answered = await http(app)
      .post(`/v1/interactions/${created.d.id}/${created.d.token}/callback`)
      .send({ type: 4, data: { content: `echo: ${value}` } });
    expect(answered.status).toBe(204);
    const history = await http(app)
      .get(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', owner.token);
    expect(history.body[0]).toMatchObject({ content: `echo: ${value}`, type: 20 });
    await ui.close();
  }, 120_000);
});
