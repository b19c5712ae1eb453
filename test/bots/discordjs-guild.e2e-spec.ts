import {
  type Client,
  Events,
  GatewayIntentBits,
  type GuildBan,
  type Message,
  MessageType,
  PermissionFlagsBits,
  type TextChannel,
} from 'discord.js';
import type { ParleyApp } from '../../src/app.setup';
import { createTestApp, http, RELAXED_LIMITS } from '../helpers/app';
import { loginDiscordJs, waitFor } from '../helpers/discordjs';
import { registerUser, type TestUser } from '../helpers/factories';
import { GatewayClient } from '../helpers/gateway-client';
import { botGuildOnTwoInstances, type BotGuild } from '../helpers/bot-guild';
import { createGuild, type TestGuild } from '../helpers/guild-factories';
import { createApplication, installBot, type TestApplication } from '../helpers/oauth2-factories';
import { serverPort } from '../helpers/ports';

/**
 * discord.js 14, unmodified (only `rest.api` set), doing what guild bots do every day with its
 * REST calls on one Parley instance and its gateway connection on another (same database and
 * Redis: GET /gateway/bot on the first names the second).
 */
describe('bots: discord.js guild operations across two instances', () => {
  let setup: BotGuild;
  let rest: ParleyApp;
  let owner: TestUser;
  let member: TestUser;
  let g: TestGuild;
  let application: TestApplication;
  let client: Client;
  let channel: TextChannel;
  let watcher: GatewayClient;

  beforeAll(async () => {
    setup = await botGuildOnTwoInstances();
    ({ rest, owner, member, g, application } = setup);
    client = await loginDiscordJs(setup.restPort, application.botToken, [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMembers,
      GatewayIntentBits.GuildModeration,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.GuildMessageReactions,
      GatewayIntentBits.MessageContent,
    ]);
    channel = client.channels.cache.get(g.channelId) as TextChannel;
    // The owner watches from the REST instance's gateway (events cross instances both ways).
    watcher = await GatewayClient.ready(`ws://127.0.0.1:${setup.restPort}/gateway`, owner.token);
  }, 60_000);

  afterAll(async () => {
    await client?.destroy();
    watcher?.ws.terminate();
    await setup?.close();
  });

  const postAs = async (who: TestUser, content: string): Promise<string> => {
    const res = await http(rest)
      .post(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', who.token)
      .send({ content })
      .expect(201);
    return res.body.id as string;
  };

  it('guild.members.fetch() gets the whole list through op 8', async () => {
    const members = await channel.guild.members.fetch();
    expect([...members.keys()].sort()).toEqual(
      [owner.userId, member.userId, application.botUserId].sort(),
    );
  });

  it('message.member.permissions.has() and message.reply() on a command', async () => {
    const answers = new Map<string, boolean>();
    const roles = new Map<string, string[]>();
    const answer = async (message: Message) => {
      if (message.content !== '!mod' || !message.member) return;
      const allowed = message.member.permissions.has(PermissionFlagsBits.ManageMessages);
      answers.set(message.author.id, allowed);
      roles.set(message.author.id, [...message.member.roles.cache.keys()]);
      await message.reply(allowed ? 'allowed' : 'denied');
    };
    const handler = (message: Message) => void answer(message);
    client.on(Events.MessageCreate, handler);
    try {
      for (const who of [owner, member]) {
        const asked = await postAs(who, '!mod');
        const reply = await watcher.next(
          (f) => f.t === 'MESSAGE_CREATE' && f.d.message_reference?.message_id === asked,
        );
        expect(reply.d).toMatchObject({
          type: MessageType.Reply,
          author: { id: application.botUserId },
          content: who === owner ? 'allowed' : 'denied',
        });
      }
      expect(Object.fromEntries(answers)).toEqual({
        [owner.userId]: true,
        [member.userId]: false,
      });
      // message.member.roles: @everyone (the guild's id) for both.
      expect(Object.fromEntries(roles)).toEqual({
        [owner.userId]: [g.guildId],
        [member.userId]: [g.guildId],
      });
    } finally {
      client.off(Events.MessageCreate, handler);
    }
  });

  it('edits and deletes its message; a validation error is a DiscordAPIError with Discord’s code', async () => {
    const sent = await channel.send('to edit');
    const edited = await sent.edit('edited by discord.js');
    expect(edited.content).toBe('edited by discord.js');
    await sent.delete();
    await expect(channel.messages.fetch({ message: sent.id, force: true })).rejects.toMatchObject({
      status: 404,
      code: 10008,
    });
    await expect(channel.send('x'.repeat(2001))).rejects.toMatchObject({
      status: 400,
      code: 50035,
    });
  });

  it('sendTyping() reaches a session on the other instance as TYPING_START', async () => {
    await channel.sendTyping();
    const typing = await watcher.dispatch('TYPING_START');
    expect(typing.d).toMatchObject({ channel_id: g.channelId, user_id: application.botUserId });
  });

  it('reacts, pins (the newer routes) and bulk-deletes; the events come back through the gateway', async () => {
    const message = await channel.send('react and pin');
    const added = waitFor(client, Events.MessageReactionAdd, () => true);
    await message.react('👍');
    await added;
    await message.pin();
    const pins = await channel.messages.fetchPins();
    expect(pins.items.map((p) => p.message.id)).toEqual([message.id]);
    await message.unpin();

    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await channel.send(`bulk ${i}`)).id);
    const bulk = waitFor(client, Events.MessageBulkDelete, () => true);
    const deleted = await channel.bulkDelete(ids);
    expect([...deleted.keys()].sort()).toEqual([...ids].sort());
    await bulk;
  });

  it('creates a role, adds it to a member and removes it', async () => {
    const guild = channel.guild;
    const role = await guild.roles.create({
      name: 'helpers',
      permissions: [PermissionFlagsBits.ManageMessages],
    });
    const target = await guild.members.fetch({ user: member.userId, force: true });
    await target.roles.add(role);
    const after = await guild.members.fetch({ user: member.userId, force: true });
    expect([...after.roles.cache.keys()].sort()).toEqual([g.guildId, role.id].sort());
    await after.roles.remove(role);
    await role.delete();
  });

  it('bans and unbans a member (GUILD_BAN_ADD reaches the bot)', async () => {
    const banned = waitFor<[GuildBan]>(
      client,
      Events.GuildBanAdd,
      (ban) => ban.user.id === member.userId,
    );
    banned.catch(() => undefined); // awaited below; a failed ban must not leave it unhandled
    await channel.guild.members.ban(member.userId, { reason: 'testing' });
    await banned;
    const bans = await channel.guild.bans.fetch();
    expect([...bans.keys()]).toEqual([member.userId]);
    await channel.guild.members.unban(member.userId);
    expect((await channel.guild.bans.fetch()).size).toBe(0);
  });
});

describe('bots: discord.js waits out a 429', () => {
  let setup: ParleyApp;
  let limited: ParleyApp;
  let client: Client | undefined;

  afterAll(async () => {
    await client?.destroy();
    await limited?.close();
    await setup?.close();
  });

  it('sends a burst beyond the global limit: every 429 waited out, every message stored', async () => {
    // Set up with the usual limits; the bot talks to an instance whose global limit is 4 per 2 s.
    setup = await createTestApp();
    const owner = await registerUser(setup);
    const g = await createGuild(setup, owner.token);
    const application = await createApplication(setup, owner);
    await installBot(setup, owner, application, g.guildId);
    const port = await serverPort();
    limited = await createTestApp({
      env: {
        GATEWAY_URL: `ws://127.0.0.1:${port}/gateway`,
        RATE_LIMIT_OVERRIDES: `${RELAXED_LIMITS},global=4/2s`,
      },
    });
    await limited.listen(port, '127.0.0.1');
    client = await loginDiscordJs(port, application.botToken, [GatewayIntentBits.Guilds]);
    const limitedEvents: unknown[] = [];
    client.rest.on('rateLimited', (info) => limitedEvents.push(info));
    const channel = client.channels.cache.get(g.channelId) as TextChannel;
    const sent = await Promise.all(Array.from({ length: 6 }, (_, i) => channel.send(`burst ${i}`)));
    expect(sent).toHaveLength(6);
    expect(limitedEvents.length).toBeGreaterThanOrEqual(1);
    const stored = await http(setup)
      .get(`/v1/channels/${g.channelId}/messages?limit=10`)
      .set('Authorization', owner.token)
      .expect(200);
    expect((stored.body as Array<{ content: string }>).map((m) => m.content).sort()).toEqual(
      Array.from({ length: 6 }, (_, i) => `burst ${i}`),
    );
  }, 60_000);
});
