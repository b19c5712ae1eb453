import type { ParleyApp } from '../src/app.setup';
import { Permissions } from '../src/modules/guilds/permissions';
import { createAdminKey } from './helpers/admin';
import { createTestApp, http } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import type { GatewayClient } from './helpers/gateway-client';
import { addMember, createGuild, giveRole, type TestGuild } from './helpers/guild-factories';
import { barrier, botSession, INTENT } from './helpers/intent-sessions';
import { createApplication, installBot, type TestApplication } from './helpers/oauth2-factories';
import { serverPort } from './helpers/ports';

const UNKNOWN = '1234567890123456789';

/** Discord's guild bans: BAN_MEMBERS, the hierarchy, no way back in, GUILD_BAN_* by intent. */
describe('guild bans (Discord’s ban routes)', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let mod: TestUser;
  let peer: TestUser;
  let member: TestUser;
  let outsider: TestUser;
  let g: TestGuild;
  let watch: TestApplication;
  let quiet: TestApplication;
  let watchSession: GatewayClient;
  let quietSession: GatewayClient;

  beforeAll(async () => {
    const port = await serverPort();
    app = await createTestApp();
    await app.listen(port, '127.0.0.1');
    [owner, mod, peer, member, outsider] = await Promise.all(
      Array.from({ length: 5 }, () => registerUser(app)),
    );
    g = await createGuild(app, owner.token);
    for (const u of [mod, peer, member]) await addMember(app, g.guildId, u.userId);
    const modRole = await giveRole(
      app,
      g.guildId,
      mod.userId,
      Permissions.BAN_MEMBERS | Permissions.VIEW_CHANNEL | Permissions.SEND_MESSAGES,
    );
    await http(app)
      .put(`/v1/guilds/${g.guildId}/members/${peer.userId}/roles/${modRole}`)
      .set('Authorization', owner.token)
      .expect(204);
    watch = await createApplication(app, owner);
    quiet = await createApplication(app, owner);
    await installBot(app, owner, watch, g.guildId);
    await installBot(app, owner, quiet, g.guildId);
    // The moderator above the bots' roles.
    await http(app)
      .patch(`/v1/guilds/${g.guildId}/roles`)
      .set('Authorization', owner.token)
      .send([{ id: modRole, position: 10 }])
      .expect(200);
    watchSession = await botSession(
      port,
      watch.botToken,
      INTENT.GUILDS | INTENT.GUILD_MODERATION | INTENT.GUILD_MESSAGES,
    );
    quietSession = await botSession(port, quiet.botToken, INTENT.GUILDS | INTENT.GUILD_MESSAGES);
  });

  afterAll(async () => {
    watchSession?.ws.terminate();
    quietSession?.ws.terminate();
    await app?.close();
  });

  const ban = (token: string, userId: string, prefix = '/v1') =>
    http(app).put(`${prefix}/guilds/${g.guildId}/bans/${userId}`).set('Authorization', token);
  const unban = (token: string, userId: string, prefix = '/v1') =>
    http(app).delete(`${prefix}/guilds/${g.guildId}/bans/${userId}`).set('Authorization', token);
  const bulkAdd = async (userId: string) => {
    const key = await createAdminKey(app, ['bulk:add:guild_members']);
    return http(app)
      .post('/v1/admin/bulk/add-guild-members')
      .set('Authorization', key.header)
      .send({ guild_id: g.guildId, user_ids: [userId] })
      .expect(200);
  };

  it('answers 401 without credentials on each route', async () => {
    const base = `/v1/guilds/${g.guildId}/bans`;
    for (const res of [
      await http(app).get(base),
      await http(app).get(`${base}/${member.userId}`),
      await http(app).put(`${base}/${member.userId}`).send({}),
      await http(app).delete(`${base}/${member.userId}`),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
  });

  it('bans a member (204): removed, GUILD_BAN_ADD to GUILD_MODERATION sessions only, the reason kept', async () => {
    const target = await registerUser(app);
    await addMember(app, g.guildId, target.userId);
    const res = await ban(mod.token, target.userId)
      .set('X-Audit-Log-Reason', encodeURIComponent('spam links, twice'))
      .send({ delete_message_seconds: 3600 })
      .expect(204);
    expect(res.body).toEqual({});
    const event = await watchSession.next(
      (f) => f.t === 'GUILD_BAN_ADD' && f.d.user.id === target.userId,
    );
    expect(event.d).toEqual({
      guild_id: g.guildId,
      user: expect.objectContaining({ id: target.userId, username: expect.any(String) }),
    });
    await barrier(app, owner.token, g.channelId, [quietSession]);
    expect(quietSession.dispatches('GUILD_BAN_ADD')).toEqual([]);

    const gone = await http(app)
      .get(`/v1/guilds/${g.guildId}/members/${target.userId}`)
      .set('Authorization', owner.token)
      .expect(404);
    expect(gone.body.code).toBe('UNKNOWN_MEMBER');
    const read = await http(app)
      .get(`/api/v10/guilds/${g.guildId}/bans/${target.userId}`)
      .set('Authorization', `Bot ${watch.botToken}`)
      .expect(403);
    expect(read.body).toEqual({ code: 50013, message: 'Missing Permissions' });
    const got = await http(app)
      .get(`/v1/guilds/${g.guildId}/bans/${target.userId}`)
      .set('Authorization', mod.token)
      .expect(200);
    expect(got.body).toEqual({
      reason: 'spam links, twice',
      user: expect.objectContaining({ id: target.userId }),
    });
    // Again: nothing changes, no second event.
    await ban(owner.token, target.userId).expect(204);
    const again = await http(app)
      .get(`/v1/guilds/${g.guildId}/bans/${target.userId}`)
      .set('Authorization', owner.token)
      .expect(200);
    expect(again.body.reason).toBe('spam links, twice');
  });

  it('deletes the banned user’s recent messages with delete_message_seconds (MESSAGE_DELETE_BULK)', async () => {
    const target = await registerUser(app);
    await addMember(app, g.guildId, target.userId);
    const post = async (token: string, content: string) =>
      (
        await http(app)
          .post(`/v1/channels/${g.channelId}/messages`)
          .set('Authorization', token)
          .send({ content })
          .expect(201)
      ).body.id as string;
    const theirs = [await post(target.token, 'one'), await post(target.token, 'two')];
    const kept = await post(member.token, 'stays');
    await ban(owner.token, target.userId).send({ delete_message_seconds: 600 }).expect(204);
    const event = await watchSession.next(
      (f) => f.t === 'MESSAGE_DELETE_BULK' && f.d.ids.includes(theirs[0]),
    );
    expect(event.d).toEqual({
      ids: expect.arrayContaining(theirs),
      channel_id: g.channelId,
      guild_id: g.guildId,
    });
    expect(event.d.ids).toHaveLength(2);
    const left = await http(app)
      .get(`/v1/channels/${g.channelId}/messages?limit=50`)
      .set('Authorization', owner.token)
      .expect(200);
    const ids = left.body.map((msg: { id: string }) => msg.id);
    expect(ids).toContain(kept);
    expect(ids.filter((id: string) => theirs.includes(id))).toEqual([]);
  });

  it('refuses a banned user every way in: the admin bulk add reports them, a bot cannot be installed', async () => {
    const banned = await registerUser(app);
    await ban(owner.token, banned.userId).send({}).expect(204);
    const bulk = await bulkAdd(banned.userId);
    expect(bulk.body).toEqual({
      successful: [],
      failed: [{ id: banned.userId, error: 'BANNED_FROM_GUILD' }],
    });
    const bot = await createApplication(app, owner);
    await ban(owner.token, bot.botUserId).expect(204);
    const install = await http(app)
      .post('/v1/oauth2/authorize/consent')
      .set('Authorization', owner.token)
      .send({ client_id: bot.id, scope: 'bot', guild_id: g.guildId, permissions: '0' })
      .expect(403);
    expect(install.body).toEqual({
      code: 'BANNED_FROM_GUILD',
      message: 'The user is banned from this guild.',
    });

    // Lifted: GUILD_BAN_REMOVE, and the user may join again.
    await unban(mod.token, banned.userId).expect(204);
    const event = await watchSession.next(
      (f) => f.t === 'GUILD_BAN_REMOVE' && f.d.user.id === banned.userId,
    );
    expect(event.d).toEqual({
      guild_id: g.guildId,
      user: expect.objectContaining({ id: banned.userId }),
    });
    expect((await bulkAdd(banned.userId)).body).toEqual({
      successful: [banned.userId],
      failed: [],
    });
    const none = await unban(mod.token, banned.userId).expect(404);
    expect(none.body).toEqual({ code: 'UNKNOWN_BAN', message: 'Unknown ban.' });
    const discord = await unban(mod.token, banned.userId, '/api/v10').expect(404);
    expect(discord.body).toEqual({ code: 10026, message: 'Unknown Ban' });
  });

  it('follows the hierarchy: not a peer, not the owner, not oneself; needs BAN_MEMBERS', async () => {
    for (const res of [
      await ban(mod.token, peer.userId),
      await ban(mod.token, owner.userId),
      await ban(mod.token, mod.userId),
      await ban(member.token, outsider.userId),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('MISSING_PERMISSIONS');
    }
    const discord = await ban(mod.token, peer.userId, '/api/v10').expect(403);
    expect(discord.body).toEqual({ code: 50013, message: 'Missing Permissions' });
    const denied = await unban(member.token, outsider.userId).expect(403);
    expect(denied.body.code).toBe('MISSING_PERMISSIONS');
    await http(app)
      .get(`/v1/guilds/${g.guildId}/members/${peer.userId}`)
      .set('Authorization', owner.token)
      .expect(200);
    const outside = await ban(outsider.token, member.userId).expect(404);
    expect(outside.body.code).toBe('UNKNOWN_GUILD');
    const unknownUser = await ban(owner.token, UNKNOWN, '/api/v10').expect(404);
    expect(unknownUser.body).toEqual({ code: 10013, message: 'Unknown User' });
    const tooLong = await ban(owner.token, outsider.userId)
      .send({ delete_message_seconds: 604_801 })
      .expect(400);
    expect(tooLong.body.errors).toEqual([
      expect.objectContaining({ path: 'delete_message_seconds', code: 'NUMBER_TYPE_MAX' }),
    ]);
  });

  it('lists bans in user id order with limit, after and before; unknown bans are 404', async () => {
    const users = await Promise.all(Array.from({ length: 3 }, () => registerUser(app)));
    for (const u of users) await ban(owner.token, u.userId).expect(204);
    const all = await http(app)
      .get(`/v1/guilds/${g.guildId}/bans`)
      .set('Authorization', mod.token)
      .expect(200);
    const ids = all.body.map((b: { user: { id: string } }) => b.user.id) as string[];
    expect(ids).toEqual([...ids].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)));
    expect(ids).toEqual(expect.arrayContaining(users.map((u) => u.userId)));
    const last = all.body.find((b: { user: { id: string } }) => b.user.id === users[0].userId);
    expect(last).toEqual({ reason: null, user: expect.objectContaining({ id: users[0].userId }) });
    const page = await http(app)
      .get(`/v1/guilds/${g.guildId}/bans?limit=2&after=${ids[0]}`)
      .set('Authorization', mod.token)
      .expect(200);
    expect(page.body.map((b: { user: { id: string } }) => b.user.id)).toEqual(ids.slice(1, 3));
    const before = await http(app)
      .get(`/api/v10/guilds/${g.guildId}/bans?limit=2&before=${ids[ids.length - 1]}`)
      .set('Authorization', mod.token)
      .expect(200);
    expect(before.body.map((b: { user: { id: string } }) => b.user.id)).toEqual(ids.slice(-3, -1));
    await http(app)
      .get(`/v1/guilds/${g.guildId}/bans`)
      .set('Authorization', member.token)
      .expect(403);
    const unknown = await http(app)
      .get(`/v1/guilds/${g.guildId}/bans/${member.userId}`)
      .set('Authorization', mod.token)
      .expect(404);
    expect(unknown.body).toEqual({ code: 'UNKNOWN_BAN', message: 'Unknown ban.' });
    const discord = await http(app)
      .get(`/api/v10/guilds/${g.guildId}/bans/${member.userId}`)
      .set('Authorization', mod.token)
      .expect(404);
    expect(discord.body).toEqual({ code: 10026, message: 'Unknown Ban' });
  });
});
