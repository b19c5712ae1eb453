import {
  type Client,
  Events,
  GatewayIntentBits,
  type Guild,
  type GuildMember,
  type Role,
  type User,
} from 'discord.js';
import type { ParleyApp } from '../../src/app.setup';
import { serverPort } from '../helpers/ports';
import { createAdminKey } from '../helpers/admin';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { GatewayClient, type Frame } from '../helpers/gateway-client';
import { createGuild, PNG_DATA_URI, type TestGuild } from '../helpers/guild-factories';
import { loginDiscordJs, waitFor } from '../helpers/discordjs';
import { createApplication, installBot, type TestApplication } from '../helpers/oauth2-factories';

const GUILD_MEMBERS_FLAG = 1 << 15;

/**
 * Every change a client can see is announced (issue 27): roles (bot-managed ones marked so),
 * guild updates carrying the roles, user and bot profile edits (USER_UPDATE to their own
 * sessions, GUILD_MEMBER_UPDATE to their guilds), webhook changes, an application deleted (its
 * bot leaves every guild first) and the admin asset purge — seen by an unmodified discord.js bot
 * in its caches and by the guild owner's raw WebSocket session.
 */
describe('gateway: every change announced, to discord.js caches and raw sessions', () => {
  let app: ParleyApp;
  let port: number;
  let owner: TestUser;
  let g: TestGuild;
  let bot: TestApplication;
  let client: Client;
  let guild: Guild;
  let user: GatewayClient;

  const install = (application: TestApplication) => installBot(app, owner, application, g.guildId);

  beforeAll(async () => {
    port = await serverPort();
    app = await createTestApp({ env: { GATEWAY_URL: `ws://127.0.0.1:${port}/gateway` } });
    await app.listen(port, '127.0.0.1');
    owner = await registerUser(app);
    g = await createGuild(app, owner.token);
    bot = await createApplication(app, owner);
    await http(app)
      .patch(`/v1/oauth2/applications/${bot.id}`)
      .set('Authorization', owner.token)
      .send({ flags: GUILD_MEMBERS_FLAG })
      .expect(200);
    await install(bot);
    client = await loginDiscordJs(port, bot.botToken, [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMembers,
      GatewayIntentBits.GuildWebhooks,
      GatewayIntentBits.GuildMessages,
    ]);
    guild = client.guilds.cache.get(g.guildId)!;
    expect(guild).toBeDefined();
    user = await GatewayClient.connect(`ws://127.0.0.1:${port}/gateway`);
    user.identify(owner.token);
    await user.dispatch('READY');
    await user.dispatch('GUILD_CREATE');
  });

  afterAll(async () => {
    await client?.destroy();
    user?.ws.terminate();
    await app?.close();
  });

  /** The next frame of the owner's session (after `from`) matching `match`. */
  const next = (match: (f: Frame) => boolean, from: number) => user.next(match, 10_000, from);

  it('installs a second bot: its managed role is GUILD_ROLE_CREATE, its membership GUILD_MEMBER_ADD', async () => {
    const from = user.frames.length;
    const other = await createApplication(app, owner);
    const roleCreated = waitFor<[Role]>(
      client,
      Events.GuildRoleCreate,
      (r) => r.tags?.botId === other.botUserId,
    );
    const memberAdded = waitFor<[GuildMember]>(
      client,
      Events.GuildMemberAdd,
      (m) => m.id === other.botUserId,
    );
    await install(other);
    const [role] = await roleCreated;
    expect(role.managed).toBe(true);
    expect(guild.roles.cache.get(role.id)?.tags?.botId).toBe(other.botUserId);
    const [member] = await memberAdded;
    expect(member.roles.cache.has(role.id)).toBe(true);
    const raw = await next((f) => f.t === 'GUILD_ROLE_CREATE', from);
    expect(raw.d).toMatchObject({
      guild_id: g.guildId,
      role: { id: role.id, managed: true, tags: { bot_id: other.botUserId } },
    });
  });

  it('renames the guild: GUILD_UPDATE carries the roles, the role cache stays whole', async () => {
    const from = user.frames.length;
    const rolesBefore = [...guild.roles.cache.keys()].sort();
    expect(rolesBefore.length).toBeGreaterThanOrEqual(2);
    const updated = waitFor<[Guild, Guild]>(
      client,
      Events.GuildUpdate,
      (_o, n) => n.name === 'renamed',
    );
    await http(app)
      .patch(`/v1/guilds/${g.guildId}`)
      .set('Authorization', owner.token)
      .send({ name: 'renamed', icon: PNG_DATA_URI })
      .expect(200);
    const [, after] = await updated;
    expect([...after.roles.cache.keys()].sort()).toEqual(rolesBefore);
    const raw = await next((f) => f.t === 'GUILD_UPDATE', from);
    expect(raw.d.name).toBe('renamed');
    expect(raw.d.icon).toMatch(/^[0-9a-f]{32}$/);
    expect((raw.d.roles as Array<{ id: string }>).map((r) => r.id).sort()).toEqual(rolesBefore);
  });

  it('edits the bot profile: USER_UPDATE to the bot (client.user), GUILD_MEMBER_UPDATE to the guild', async () => {
    const from = user.frames.length;
    const name = `renamed_bot_${Date.now() % 100000}`;
    const renamed = waitFor(client, Events.UserUpdate, () => client.user?.username === name);
    const res = await http(app)
      .patch(`/v1/oauth2/applications/${bot.id}/bot`)
      .set('Authorization', owner.token)
      .send({ username: name });
    expect(res.status).toBe(200);
    await renamed;
    expect(client.user?.username).toBe(name);
    const raw = await next(
      (f) => f.t === 'GUILD_MEMBER_UPDATE' && f.d.user.id === bot.botUserId,
      from,
    );
    expect(raw.d).toMatchObject({ guild_id: g.guildId, user: { username: name, bot: true } });
    // The owner's own session did not get the bot's USER_UPDATE.
    expect(user.frames.slice(from).some((f) => f.t === 'USER_UPDATE')).toBe(false);
  });

  it('edits a user profile: USER_UPDATE to their sessions, GUILD_MEMBER_UPDATE to the bot’s member cache', async () => {
    const from = user.frames.length;
    // discord.js applies the member's user part as a user update (its userUpdate event).
    const userUpdated = waitFor<[User, User]>(
      client,
      Events.UserUpdate,
      (_o, n) => n.id === owner.userId && n.globalName === 'Owner Renamed',
    );
    const res = await http(app)
      .patch('/v1/users/@me')
      .set('Authorization', owner.token)
      .send({ global_name: 'Owner Renamed' });
    expect(res.status).toBe(200);
    const self = await next((f) => f.t === 'USER_UPDATE', from);
    expect(self.d).toMatchObject({ id: owner.userId, global_name: 'Owner Renamed' });
    expect(self.d.email).toBe(owner.email);
    const own = await next(
      (f) => f.t === 'GUILD_MEMBER_UPDATE' && f.d.user.id === owner.userId,
      from,
    );
    expect(own.d.user.global_name).toBe('Owner Renamed');
    await userUpdated;
    expect(guild.members.cache.get(owner.userId)?.user.globalName).toBe('Owner Renamed');
  });

  it('creates, renames and deletes a webhook: WEBHOOKS_UPDATE each time', async () => {
    const from = user.frames.length;
    const seen: string[] = [];
    const onUpdate = (channel: { id: string }) => seen.push(channel.id);
    client.on(Events.WebhooksUpdate, onUpdate);
    try {
      const created = await http(app)
        .post(`/v1/channels/${g.channelId}/webhooks`)
        .set('Authorization', owner.token)
        .send({ name: 'matrix' });
      expect(created.status).toBe(201);
      await http(app)
        .patch(`/v1/webhooks/${created.body.id}`)
        .set('Authorization', owner.token)
        .send({ name: 'matrix renamed' })
        .expect(200);
      await http(app)
        .delete(`/v1/webhooks/${created.body.id}`)
        .set('Authorization', owner.token)
        .expect(204);
      await next(
        (f) =>
          f.t === 'WEBHOOKS_UPDATE' &&
          user.frames.slice(from).filter((x) => x.t === 'WEBHOOKS_UPDATE').length === 3,
        from,
      );
      const raw = user.frames.slice(from).filter((f) => f.t === 'WEBHOOKS_UPDATE');
      expect(raw.map((f) => f.d)).toEqual(
        Array(3).fill({ guild_id: g.guildId, channel_id: g.channelId }),
      );
      const deadline = Date.now() + 5_000;
      while (seen.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(seen).toEqual([g.channelId, g.channelId, g.channelId]);
    } finally {
      client.off(Events.WebhooksUpdate, onUpdate);
    }
  });

  it('purges the guild’s assets: GUILD_UPDATE without the icon, MESSAGE_UPDATE without the webhook avatar', async () => {
    const hook = await http(app)
      .post(`/v1/channels/${g.channelId}/webhooks`)
      .set('Authorization', owner.token)
      .send({ name: 'with avatar', avatar: PNG_DATA_URI });
    expect(hook.status).toBe(201);
    const posted = await http(app)
      .post(`/v1/webhooks/${hook.body.id}/${hook.body.token}?wait=true`)
      .send({ content: 'with an avatar' });
    expect(posted.status).toBe(200);
    expect(posted.body.author.avatar).toMatch(/^[0-9a-f]{32}$/);
    const from = user.frames.length;
    const admin = await createAdminKey(app, ['asset:purge']);
    const purged = await http(app)
      .post('/v1/admin/assets/purge')
      .set('Authorization', admin.header)
      .send({ guild_ids: [g.guildId] });
    expect(purged.status).toBe(200);
    const guildUpdate = await next((f) => f.t === 'GUILD_UPDATE', from);
    expect(guildUpdate.d.icon).toBeNull();
    const messageUpdate = await next(
      (f) => f.t === 'MESSAGE_UPDATE' && f.d.id === posted.body.id,
      from,
    );
    expect(messageUpdate.d.author.avatar).toBeNull();
    await next((f) => f.t === 'WEBHOOKS_UPDATE', from);
    expect(guild.icon).toBeNull();
  });

  it('deletes an application: its bot leaves first — GUILD_MEMBER_REMOVE and GUILD_ROLE_DELETE to the guild, GUILD_DELETE to the bot', async () => {
    const doomed = await createApplication(app, owner);
    const created = waitFor<[Role]>(
      client,
      Events.GuildRoleCreate,
      (r) => r.tags?.botId === doomed.botUserId,
    );
    await install(doomed);
    const [managed] = await created;
    const doomedSession = await GatewayClient.connect(`ws://127.0.0.1:${port}/gateway`);
    doomedSession.identify(doomed.botToken, { intents: 1 });
    await doomedSession.dispatch('GUILD_CREATE');
    const from = user.frames.length;
    const removed = waitFor<[GuildMember]>(
      client,
      Events.GuildMemberRemove,
      (m) => m.id === doomed.botUserId,
    );
    const roleDeleted = waitFor<[Role]>(client, Events.GuildRoleDelete, (r) => r.id === managed.id);
    const del = await http(app)
      .delete(`/v1/oauth2/applications/${doomed.id}`)
      .set('Authorization', owner.token);
    expect(del.status).toBe(204);
    await removed;
    await roleDeleted;
    expect(guild.members.cache.has(doomed.botUserId)).toBe(false);
    expect(guild.roles.cache.has(managed.id)).toBe(false);
    const gone = await doomedSession.dispatch('GUILD_DELETE');
    expect(gone.d).toEqual({ id: g.guildId });
    expect((await doomedSession.closedWithin(5_000)).code).toBe(4004);
    await next((f) => f.t === 'GUILD_MEMBER_REMOVE' && f.d.user.id === doomed.botUserId, from);
    await next((f) => f.t === 'GUILD_ROLE_DELETE' && f.d.role_id === managed.id, from);
  });
});
