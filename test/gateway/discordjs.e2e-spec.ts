import {
  type Client,
  Events,
  GatewayIntentBits,
  type Message,
  MessageType,
  type PartialMessage,
  type TextChannel,
} from 'discord.js';
import type { ParleyApp } from '../../src/app.setup';
import { serverPort } from '../helpers/ports';
import { transformRepoHost } from '../../src/modules/webhooks/transformers/repohost.transformer';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { GatewayClient } from '../helpers/gateway-client';
import { pushExample } from '../helpers/messages';
import {
  createGuild,
  createWebhook,
  type TestGuild,
  type TestWebhook,
} from '../helpers/guild-factories';
import { loginDiscordJs, waitFor } from '../helpers/discordjs';
import {
  createApplication,
  installBot,
  MEMBERS_INTENT_FLAG,
  MESSAGE_CONTENT_INTENT_FLAG,
  PRESENCE_INTENT_FLAG,
  setApplicationFlags,
  type TestApplication,
} from '../helpers/oauth2-factories';

/**
 * discord.js 14, unmodified: only `rest.api` and `rest.version` point it at Parley. It calls
 * GET /gateway/bot, connects to the URL it gets, identifies, and builds its caches from READY and
 * GUILD_CREATE; its messages go through the REST routes.
 */
describe('gateway: an unmodified discord.js bot', () => {
  let app: ParleyApp;
  let port: number;
  let owner: TestUser;
  let g: TestGuild;
  let application: TestApplication;
  let hook: TestWebhook;
  let client: Client;
  let user: GatewayClient;

  beforeAll(async () => {
    port = await serverPort();
    app = await createTestApp({ env: { GATEWAY_URL: `ws://127.0.0.1:${port}/gateway` } });
    await app.listen(port, '127.0.0.1');
    owner = await registerUser(app);
    g = await createGuild(app, owner.token);
    hook = await createWebhook(app, owner.token, g.channelId, 'CI');
    application = await createApplication(app, owner);
    // The owner turns on MESSAGE_CONTENT for the bot, then installs it (consent flow).
    await setApplicationFlags(app, owner, application, MESSAGE_CONTENT_INTENT_FLAG);
    await installBot(app, owner, application, g.guildId);
    client = await loginDiscordJs(port, application.botToken, [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
    ]);

    // The guild's owner, connected with a raw WebSocket (a user session).
    user = await GatewayClient.ready(`ws://127.0.0.1:${port}/gateway`, owner.token);
  });

  afterAll(async () => {
    await client?.destroy();
    user?.ws.terminate();
    await app?.close();
  });

  it('reaches ready with the guild and its channels cached', () => {
    expect(client.user?.id).toBe(application.botUserId);
    expect(client.application?.id).toBe(application.id);
    const guild = client.guilds.cache.get(g.guildId);
    expect(guild).toBeDefined();
    expect(guild?.ownerId).toBe(owner.userId);
    const channel = guild?.channels.cache.get(g.channelId);
    expect(channel?.name).toBe('general');
    expect(channel?.isTextBased()).toBe(true);
    expect(guild?.roles.everyone.id).toBe(g.guildId);
  });

  it('receives messageCreate for a plain, a repohost (GitHub push) and a chatcompat webhook post', async () => {
    const plain = waitFor<[Message]>(
      client,
      Events.MessageCreate,
      (m) => m.content === 'plain post',
    );
    await http(app)
      .post(`/v1/webhooks/${hook.id}/${hook.token}`)
      .send({ content: 'plain post', embeds: [{ title: 'Plain embed' }] })
      .expect(204);
    const [p] = await plain;
    expect(p.webhookId).toBe(hook.id);
    expect(p.author.bot).toBe(true);
    expect(p.author.id).toBe(hook.id);
    expect(p.embeds[0].title).toBe('Plain embed');
    expect(p.channelId).toBe(g.channelId);
    expect(p.guildId).toBe(g.guildId);

    const payload = pushExample();
    const expected = transformRepoHost('push', payload);
    const push = waitFor<[Message]>(
      client,
      Events.MessageCreate,
      (m) => m.webhookId === hook.id && m.embeds[0]?.title === expected?.embeds[0]?.title,
    );
    await http(app)
      .post(`/v1/webhooks/${hook.id}/${hook.token}/repohost`)
      .set('X-GitHub-Event', 'push')
      .send(payload)
      .expect(204);
    const [gh] = await push;
    expect(gh.author.bot).toBe(true);
    expect(gh.embeds[0].title).toBe(expected?.embeds[0]?.title);

    const slack = waitFor<[Message]>(
      client,
      Events.MessageCreate,
      (m) => m.content === 'Deploy finished',
    );
    const res = await http(app)
      .post(`/v1/webhooks/${hook.id}/${hook.token}/chatcompat`)
      .send({
        text: 'Deploy finished',
        username: 'deploy-bot',
        attachments: [{ color: 'good', title: 'Build #42', text: 'All green' }],
      });
    expect(res.status).toBe(200);
    const [s] = await slack;
    expect(s.webhookId).toBe(hook.id);
    expect(s.author.username).toBe('deploy-bot');
    expect(s.embeds[0].title).toBe('Build #42');
  });

  it('replies with channel.send, which a user session sees; edits and deletes arrive as messageUpdate and messageDelete', async () => {
    const channel = client.channels.cache.get(g.channelId) as TextChannel;
    const seen = waitFor<[Message]>(client, Events.MessageCreate, (m) => m.content === 'pong');
    const sent = await channel.send('pong');
    expect(sent.author.id).toBe(application.botUserId);
    expect((await seen)[0].id).toBe(sent.id);
    const relayed = await user.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === sent.id);
    expect(relayed.d).toMatchObject({
      content: 'pong',
      author: { id: application.botUserId, bot: true },
      guild_id: g.guildId,
      channel_id: g.channelId,
    });

    // message.reply(): a reply (type 19) that references the message.
    const answer = await sent.reply('pong, answered');
    expect(answer.type).toBe(MessageType.Reply);
    expect(answer.reference?.messageId).toBe(sent.id);
    expect((await answer.fetchReference()).content).toBe('pong');

    const updated = waitFor<[Message | PartialMessage, Message | PartialMessage]>(
      client,
      Events.MessageUpdate,
      (_old, m) => m.id === sent.id,
    );
    await sent.edit('pong, edited');
    const [, after] = await updated;
    expect(after.content).toBe('pong, edited');
    expect(after.editedTimestamp).not.toBeNull();

    const deleted = waitFor<[Message | PartialMessage]>(
      client,
      Events.MessageDelete,
      (m) => m.id === sent.id,
    );
    await sent.delete();
    expect((await deleted)[0].id).toBe(sent.id);
    const gone = await user.next((f) => f.t === 'MESSAGE_DELETE' && f.d.id === sent.id);
    expect(gone.d).toEqual({ id: sent.id, channel_id: g.channelId, guild_id: g.guildId });
  });

  it('fetches a member and a user through REST (guild.members.fetch, users.fetch)', async () => {
    const guild = client.guilds.cache.get(g.guildId)!;
    const member = await guild.members.fetch({ user: owner.userId, force: true });
    expect(member.id).toBe(owner.userId);
    expect(member.joinedTimestamp).not.toBeNull();
    expect(member.roles.cache.map((r) => r.id)).toEqual([g.guildId]);
    const fetched = await client.users.fetch(owner.userId, { force: true });
    expect(fetched.username).toBe(owner.username);
  });

  it('connects with every GatewayIntentBits once the owner enables the three privileged ones', async () => {
    const everything = await createApplication(app, owner);
    await setApplicationFlags(
      app,
      owner,
      everything,
      PRESENCE_INTENT_FLAG | MEMBERS_INTENT_FLAG | MESSAGE_CONTENT_INTENT_FLAG,
    );
    await installBot(app, owner, everything, g.guildId);
    const all = Object.values(GatewayIntentBits).filter((v): v is number => typeof v === 'number');
    const bot = await loginDiscordJs(port, everything.botToken, all);
    try {
      expect(bot.isReady()).toBe(true);
      const guild = bot.guilds.cache.get(g.guildId);
      expect(guild?.members.cache.has(owner.userId)).toBe(true);
      // GUILD_PRESENCES: the guild's owner (connected as a user session) is online.
      expect(guild?.presences.cache.get(owner.userId)?.status).toBe('online');
    } finally {
      await bot.destroy();
    }
  });
});
