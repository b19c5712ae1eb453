import { Events, GatewayIntentBits, type MessageReaction, type TextChannel } from 'discord.js';
import type { ParleyApp } from '../src/app.setup';
import { Permissions } from '../src/modules/guilds/permissions';
import { createTestApp, http } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import { GatewayClient } from './helpers/gateway-client';
import { addMember, createGuild, giveRole, type TestGuild } from './helpers/guild-factories';
import { loginDiscordJs, waitFor } from './helpers/discordjs';
import { createApplication, installBot, VIEW_AND_SEND } from './helpers/oauth2-factories';
import { serverPort } from './helpers/ports';

const THUMBS = '👍';
const FAMILY = '👨‍👩‍👧';
const UNKNOWN = '1234567890123456789';
const GUILDS = 1 << 0;
const GUILD_MESSAGES = 1 << 9;
const GUILD_MESSAGE_REACTIONS = 1 << 10;

/** Discord's reaction object for a unicode emoji. */
const reaction = (name: string, count: number, me: boolean) => ({
  count,
  count_details: { burst: 0, normal: count },
  me,
  me_burst: false,
  emoji: { id: null, name },
  burst_colors: [],
});

/** Discord's reaction routes: unicode emoji, the `reactions` of message reads, the four events. */
describe('messages: reactions', () => {
  let app: ParleyApp;
  let port: number;
  let owner: TestUser;
  let reactor: TestUser;
  let plain: TestUser;
  let moderator: TestUser;
  let outsider: TestUser;
  let g: TestGuild;
  /** A bot's session with GUILD_MESSAGE_REACTIONS, and one without (user sessions get every event). */
  let listener: GatewayClient;
  let deaf: GatewayClient;

  beforeAll(async () => {
    port = await serverPort();
    app = await createTestApp({ env: { GATEWAY_URL: `ws://127.0.0.1:${port}/gateway` } });
    await app.listen(port, '127.0.0.1');
    [owner, reactor, plain, moderator, outsider] = await Promise.all(
      [0, 1, 2, 3, 4].map(() => registerUser(app)),
    );
    g = await createGuild(app, owner.token);
    for (const u of [reactor, plain, moderator]) await addMember(app, g.guildId, u.userId);
    // @everyone has no ADD_REACTIONS in a new guild: `plain` may only join existing reactions.
    await giveRole(app, g.guildId, reactor.userId, Permissions.ADD_REACTIONS);
    await giveRole(app, g.guildId, moderator.userId, Permissions.MANAGE_MESSAGES);
    const url = `ws://127.0.0.1:${port}/gateway`;
    [listener, deaf] = await Promise.all(
      [GUILDS | GUILD_MESSAGE_REACTIONS, GUILDS | GUILD_MESSAGES].map(async (intents) => {
        const bot = await createApplication(app, owner);
        await installBot(app, owner, bot, g.guildId);
        const client = await GatewayClient.connect(url);
        client.identify(bot.botToken, { intents });
        await client.dispatch('GUILD_CREATE');
        return client;
      }),
    );
  });

  afterAll(async () => {
    listener?.ws.terminate();
    deaf?.ws.terminate();
    await app?.close();
  });

  const post = async (content = 'react to me'): Promise<string> => {
    const res = await http(app)
      .post(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', owner.token)
      .send({ content })
      .expect(201);
    return res.body.id as string;
  };
  const base = (messageId: string, prefix = '/v1', channelId = g.channelId) =>
    `${prefix}/channels/${channelId}/messages/${messageId}/reactions`;
  const at = (messageId: string, emoji: string, prefix?: string) =>
    `${base(messageId, prefix)}/${encodeURIComponent(emoji)}`;
  const react = (user: TestUser, messageId: string, emoji: string, prefix?: string) =>
    http(app)
      .put(`${at(messageId, emoji, prefix)}/@me`)
      .set('Authorization', user.token);
  const getMessage = (user: TestUser, messageId: string) =>
    http(app)
      .get(`/v1/channels/${g.channelId}/messages/${messageId}`)
      .set('Authorization', user.token)
      .expect(200);

  it('answers 401 without credentials on every reaction route', async () => {
    const m = at(UNKNOWN, THUMBS);
    const calls = [
      http(app).put(`${m}/@me`),
      http(app).delete(`${m}/@me`),
      http(app).delete(`${m}/${UNKNOWN}`),
      http(app).get(m),
      http(app).delete(m),
      http(app).delete(base(UNKNOWN)),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 'UNAUTHORIZED', message: expect.any(String) });
    }
  });

  it('adds reactions idempotently; message reads carry them with `me` for each caller', async () => {
    const id = await post();
    await react(reactor, id, THUMBS).expect(204);
    await react(reactor, id, THUMBS).expect(204);
    // An emoji already on the message needs no ADD_REACTIONS; a new one does.
    await react(plain, id, THUMBS).expect(204);
    await react(reactor, id, FAMILY).expect(204);
    const asReactor = await getMessage(reactor, id);
    expect(asReactor.body.reactions).toEqual([
      reaction(THUMBS, 2, true),
      reaction(FAMILY, 1, true),
    ]);
    const asOwner = await getMessage(owner, id);
    expect(asOwner.body.reactions).toEqual([
      reaction(THUMBS, 2, false),
      reaction(FAMILY, 1, false),
    ]);
    // Lists carry them too; a message without reactions has no `reactions` (as on Discord).
    const bare = await post('no reactions');
    const list = await http(app)
      .get(`/v1/channels/${g.channelId}/messages?limit=5`)
      .set('Authorization', plain.token)
      .expect(200);
    const byId = new Map(list.body.map((m: { id: string }) => [m.id, m]));
    expect((byId.get(id) as { reactions: unknown }).reactions).toEqual([
      reaction(THUMBS, 2, true),
      reaction(FAMILY, 1, false),
    ]);
    expect(byId.get(bare)).not.toHaveProperty('reactions');
  });

  it('403s a new emoji without ADD_REACTIONS, and caps a message at 20 different emoji', async () => {
    const id = await post();
    const refused = await react(plain, id, '🎉').expect(403);
    expect(refused.body).toEqual({ code: 'MISSING_PERMISSIONS', message: expect.any(String) });
    const discord = await react(plain, id, '🎉', '/api/v10').expect(403);
    expect(discord.body).toEqual({ code: 50013, message: 'Missing Permissions' });
    const twenty = [...'😀😁😂🤣😃😄😅😆😉😊😋😎😍😘🥰😗😙🥲😚🙂'];
    expect(twenty).toHaveLength(20);
    for (const emoji of twenty) await react(owner, id, emoji).expect(204);
    const full = await react(owner, id, '🤗').expect(400);
    expect(full.body).toEqual({ code: 'MAX_REACTIONS', message: expect.any(String) });
    const fullDiscord = await react(owner, id, '🤗', '/api/v10').expect(400);
    expect(fullDiscord.body).toEqual({
      code: 30010,
      message: 'Maximum number of reactions reached (20)',
    });
    // Joining one of the 20 is still allowed.
    await react(reactor, id, '🙂').expect(204);
  });

  it('refuses what is not a unicode emoji: 400 UNKNOWN_EMOJI (Discord’s 10014)', async () => {
    const id = await post();
    for (const emoji of ['thumbsup', '1', `${THUMBS}${THUMBS}`]) {
      const res = await react(owner, id, emoji).expect(400);
      expect(res.body).toEqual({ code: 'UNKNOWN_EMOJI', message: expect.any(String) });
    }
    const custom = await react(owner, id, 'parley:123456789012345678').expect(400);
    expect(custom.body).toEqual({
      code: 'UNKNOWN_EMOJI',
      message: 'Custom emoji are not supported: react with a unicode emoji.',
    });
    const discord = await http(app)
      .get(at(id, 'parley:123456789012345678', '/api/v10'))
      .set('Authorization', owner.token)
      .expect(400);
    expect(discord.body).toEqual({ code: 10014, message: 'Unknown Emoji' });
  });

  it('404s an unknown message or channel, in the envelope on /v1 and Discord’s codes on /api/v10', async () => {
    const id = await post();
    for (const path of [`${at(UNKNOWN, THUMBS)}/@me`, base(UNKNOWN)]) {
      const res = await http(app).delete(path).set('Authorization', owner.token).expect(404);
      expect(res.body).toEqual({ code: 'UNKNOWN_MESSAGE', message: expect.any(String) });
    }
    const discord = await react(owner, UNKNOWN, THUMBS, '/api/v10').expect(404);
    expect(discord.body).toEqual({ code: 10008, message: 'Unknown Message' });
    const list = await http(app)
      .get(at(UNKNOWN, THUMBS, '/api/v10'))
      .set('Authorization', owner.token)
      .expect(404);
    expect(list.body).toEqual({ code: 10008, message: 'Unknown Message' });
    // Not a member: the channel does not exist for them.
    const outside = await react(outsider, id, THUMBS).expect(404);
    expect(outside.body).toEqual({ code: 'UNKNOWN_CHANNEL', message: expect.any(String) });
    const outsideDiscord = await http(app)
      .delete(base(id, '/api/v10'))
      .set('Authorization', outsider.token)
      .expect(404);
    expect(outsideDiscord.body).toEqual({ code: 10003, message: 'Unknown Channel' });
  });

  it('lists who reacted in user id order, paged by `after` and `limit`', async () => {
    const id = await post();
    for (const u of [owner, reactor, plain, moderator]) await react(u, id, FAMILY).expect(204);
    const ids = [owner, reactor, plain, moderator].map((u) => u.userId).sort(byId);
    const all = await http(app).get(at(id, FAMILY)).set('Authorization', plain.token).expect(200);
    expect(all.body.map((u: { id: string }) => u.id)).toEqual(ids);
    const me = all.body.find((u: { id: string }) => u.id === plain.userId);
    expect(me).toEqual({
      id: plain.userId,
      username: plain.username,
      discriminator: expect.stringMatching(/^\d{4}$/),
      global_name: null,
      avatar: null,
      avatar_color: null,
      flags: 0,
    });
    const first = await http(app)
      .get(`${at(id, FAMILY)}?limit=2`)
      .set('Authorization', plain.token)
      .expect(200);
    expect(first.body.map((u: { id: string }) => u.id)).toEqual(ids.slice(0, 2));
    const rest = await http(app)
      .get(`${at(id, FAMILY, '/api/v10')}?after=${ids[1]}&limit=100`)
      .set('Authorization', plain.token)
      .expect(200);
    expect(rest.body.map((u: { id: string }) => u.id)).toEqual(ids.slice(2));
    const none = await http(app).get(at(id, '🦄')).set('Authorization', plain.token).expect(200);
    expect(none.body).toEqual([]);
    const bad = await http(app)
      .get(`${at(id, FAMILY)}?limit=101`)
      .set('Authorization', plain.token)
      .expect(400);
    expect(bad.body.code).toBe('INVALID_FORM_BODY');
  });

  it('removes: one’s own, anyone’s with MANAGE_MESSAGES, one emoji’s, all of them', async () => {
    const id = await post();
    for (const u of [reactor, plain, moderator]) await react(u, id, THUMBS).expect(204);
    await react(reactor, id, FAMILY).expect(204);
    const others = `${at(id, THUMBS)}/${reactor.userId}`;
    const refused = await http(app).delete(others).set('Authorization', plain.token).expect(403);
    expect(refused.body).toEqual({ code: 'MISSING_PERMISSIONS', message: expect.any(String) });
    await http(app).delete(others).set('Authorization', moderator.token).expect(204);
    await http(app)
      .delete(`${at(id, THUMBS)}/@me`)
      .set('Authorization', plain.token)
      .expect(204);
    // Removing what is not there changes nothing.
    await http(app)
      .delete(`${at(id, THUMBS)}/@me`)
      .set('Authorization', plain.token)
      .expect(204);
    expect((await getMessage(moderator, id)).body.reactions).toEqual([
      reaction(THUMBS, 1, true),
      reaction(FAMILY, 1, false),
    ]);
    for (const path of [at(id, THUMBS), base(id)]) {
      const res = await http(app).delete(path).set('Authorization', plain.token).expect(403);
      expect(res.body).toEqual({ code: 'MISSING_PERMISSIONS', message: expect.any(String) });
    }
    await http(app).delete(at(id, THUMBS)).set('Authorization', moderator.token).expect(204);
    expect((await getMessage(owner, id)).body.reactions).toEqual([reaction(FAMILY, 1, false)]);
    await http(app).delete(base(id)).set('Authorization', owner.token).expect(204);
    expect((await getMessage(owner, id)).body).not.toHaveProperty('reactions');
  });

  it('announces each change to sessions with GUILD_MESSAGE_REACTIONS, and to no other', async () => {
    const id = await post();
    const from = listener.frames.length;
    const next = (t: string) =>
      listener.next((f) => f.t === t && f.d.message_id === id, 5_000, from);
    const place = { channel_id: g.channelId, message_id: id, guild_id: g.guildId };

    await react(reactor, id, FAMILY).expect(204);
    const added = await next('MESSAGE_REACTION_ADD');
    expect(added.d).toEqual({
      ...place,
      user_id: reactor.userId,
      member: expect.objectContaining({
        user: expect.objectContaining({ id: reactor.userId }),
        roles: [expect.any(String)],
        joined_at: expect.any(String),
        deaf: false,
        mute: false,
      }),
      emoji: { id: null, name: FAMILY },
      message_author_id: owner.userId,
      burst: false,
      burst_colors: [],
      type: 0,
    });
    await http(app)
      .delete(`${at(id, FAMILY)}/@me`)
      .set('Authorization', reactor.token)
      .expect(204);
    const removed = await next('MESSAGE_REACTION_REMOVE');
    expect(removed.d).toEqual({
      ...place,
      user_id: reactor.userId,
      emoji: { id: null, name: FAMILY },
      burst: false,
      type: 0,
    });
    await react(reactor, id, THUMBS).expect(204);
    await http(app).delete(at(id, THUMBS)).set('Authorization', owner.token).expect(204);
    const emojiGone = await next('MESSAGE_REACTION_REMOVE_EMOJI');
    expect(emojiGone.d).toEqual({ ...place, emoji: { id: null, name: THUMBS } });
    await react(reactor, id, THUMBS).expect(204);
    await http(app).delete(base(id)).set('Authorization', owner.token).expect(204);
    const allGone = await next('MESSAGE_REACTION_REMOVE_ALL');
    expect(allGone.d).toEqual(place);

    // The session without the intent got the message, and none of its reactions.
    const marker = await post('after the reactions');
    await deaf.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === marker);
    expect(deaf.dispatches().filter((f) => f.t!.startsWith('MESSAGE_REACTION'))).toEqual([]);
  });

  it('serves discord.js: it reacts (percent-encoded), reads the reactions and who reacted, removes', async () => {
    const bot = await createApplication(app, owner);
    const permissions = BigInt(VIEW_AND_SEND) | Permissions.ADD_REACTIONS;
    await installBot(app, owner, bot, g.guildId, String(permissions));
    const client = await loginDiscordJs(port, bot.botToken, [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.GuildMessageReactions,
    ]);
    try {
      const id = await post('discord.js reacts');
      const channel = (await client.channels.fetch(g.channelId)) as TextChannel;
      const message = await channel.messages.fetch(id);
      const added = waitFor<[MessageReaction]>(
        client,
        Events.MessageReactionAdd,
        (r) => r.message.id === id,
      );
      await message.react(FAMILY);
      expect((await added)[0].emoji.name).toBe(FAMILY);
      const read = await channel.messages.fetch({ message: id, force: true });
      const mine = read.reactions.cache.get(FAMILY)!;
      expect({ count: mine.count, me: mine.me }).toEqual({ count: 1, me: true });
      expect([...(await mine.users.fetch()).keys()]).toEqual([bot.botUserId]);
      await mine.users.remove(bot.botUserId);
      expect((await getMessage(owner, id)).body).not.toHaveProperty('reactions');
    } finally {
      await client.destroy();
    }
  });
});

function byId(a: string, b: string): number {
  return BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0;
}
