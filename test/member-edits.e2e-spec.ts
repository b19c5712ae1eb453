import type { ParleyApp } from '../src/app.setup';
import { Permissions } from '../src/modules/guilds/permissions';
import { createTestApp, http } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import { GatewayClient } from './helpers/gateway-client';
import { addMember, createGuild, giveRole, type TestGuild } from './helpers/guild-factories';
import { barrier, botSession, INTENT } from './helpers/intent-sessions';
import {
  createApplication,
  installBot,
  MEMBERS_INTENT_FLAG,
  setApplicationFlags,
  type TestApplication,
} from './helpers/oauth2-factories';
import { serverPort } from './helpers/ports';

const UNKNOWN = '1234567890123456789';

/** Discord's member edits: nick, roles, one role on/off, kick — with the role hierarchy. */
describe('member edits (Discord’s Modify Guild Member, member roles, kick)', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let mod: TestUser;
  let peer: TestUser;
  let member: TestUser;
  let outsider: TestUser;
  let g: TestGuild;
  let modRole: string;
  let low: string;
  let high: string;
  let bot: TestApplication;
  let quiet: TestApplication;
  let membersSession: GatewayClient;
  let messagesSession: GatewayClient;

  const MOD =
    Permissions.MANAGE_ROLES |
    Permissions.MANAGE_NICKNAMES |
    Permissions.KICK_MEMBERS |
    Permissions.VIEW_CHANNEL |
    Permissions.SEND_MESSAGES;

  let port: number;

  beforeAll(async () => {
    port = await serverPort();
    app = await createTestApp();
    await app.listen(port, '127.0.0.1');
    [owner, mod, peer, member, outsider] = await Promise.all(
      Array.from({ length: 5 }, () => registerUser(app)),
    );
    g = await createGuild(app, owner.token);
    for (const u of [mod, peer, member]) await addMember(app, g.guildId, u.userId);
    modRole = await giveRole(app, g.guildId, mod.userId, MOD);
    bot = await createApplication(app, owner);
    quiet = await createApplication(app, owner);
    await setApplicationFlags(app, owner, bot, MEMBERS_INTENT_FLAG);
    await installBot(app, owner, bot, g.guildId);
    await installBot(app, owner, quiet, g.guildId);
    const create = async (name: string, permissions = '0') =>
      (
        await http(app)
          .post(`/v1/guilds/${g.guildId}/roles`)
          .set('Authorization', owner.token)
          .send({ name, permissions })
          .expect(200)
      ).body.id as string;
    low = await create('low', String(Permissions.VIEW_CHANNEL));
    high = await create('high');
    await http(app)
      .patch(`/v1/guilds/${g.guildId}/roles`)
      .set('Authorization', owner.token)
      .send([
        { id: modRole, position: 10 },
        { id: high, position: 20 },
      ])
      .expect(200);
    // The peer ranks with the moderator: the same highest role.
    await http(app)
      .put(`/v1/guilds/${g.guildId}/members/${peer.userId}/roles/${modRole}`)
      .set('Authorization', owner.token)
      .expect(204);
    membersSession = await botSession(
      port,
      bot.botToken,
      INTENT.GUILDS | INTENT.GUILD_MEMBERS | INTENT.GUILD_MESSAGES,
    );
    messagesSession = await botSession(port, quiet.botToken, INTENT.GUILDS | INTENT.GUILD_MESSAGES);
  });

  afterAll(async () => {
    membersSession?.ws.terminate();
    messagesSession?.ws.terminate();
    await app?.close();
  });

  const patchMember = (
    token: string,
    userId: string,
    body: Record<string, unknown>,
    prefix = '/v1',
  ) =>
    http(app)
      .patch(`${prefix}/guilds/${g.guildId}/members/${userId}`)
      .set('Authorization', token)
      .send(body);
  const memberRole = (
    method: 'put' | 'delete',
    token: string,
    userId: string,
    roleId: string,
    prefix = '/v1',
  ) =>
    http(app)
      [method](`${prefix}/guilds/${g.guildId}/members/${userId}/roles/${roleId}`)
      .set('Authorization', token);

  it('answers 401 without credentials on each route', async () => {
    const base = `/v1/guilds/${g.guildId}/members`;
    for (const res of [
      await http(app).patch(`${base}/${member.userId}`).send({ nick: 'x' }),
      await http(app).patch(`${base}/@me`).send({ nick: 'x' }),
      await http(app).put(`${base}/${member.userId}/roles/${low}`),
      await http(app).delete(`${base}/${member.userId}/roles/${low}`),
      await http(app).delete(`${base}/${member.userId}`),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
  });

  it('sets a nickname (MANAGE_NICKNAMES): Discord’s member back, GUILD_MEMBER_UPDATE to GUILD_MEMBERS sessions only', async () => {
    const res = await patchMember(mod.token, member.userId, { nick: 'Countess' }).expect(200);
    expect(res.body).toEqual({
      user: expect.objectContaining({ id: member.userId }),
      roles: [],
      joined_at: expect.any(String),
      nick: 'Countess',
      avatar: null,
      banner: null,
      premium_since: null,
      deaf: false,
      mute: false,
      flags: 0,
      pending: false,
      communication_disabled_until: null,
    });
    const event = await membersSession.next(
      (f) =>
        f.t === 'GUILD_MEMBER_UPDATE' && f.d.user.id === member.userId && f.d.nick === 'Countess',
    );
    expect(event.d).toEqual({ ...res.body, guild_id: g.guildId });
    await barrier(app, owner.token, g.channelId, [messagesSession]);
    expect(
      messagesSession
        .dispatches('GUILD_MEMBER_UPDATE')
        .filter((f) => f.d.user.id === member.userId),
    ).toEqual([]);
    const read = await http(app)
      .get(`/api/v10/guilds/${g.guildId}/members/${member.userId}`)
      .set('Authorization', member.token)
      .expect(200);
    expect(read.body.nick).toBe('Countess');
    // A new session's GUILD_CREATE shows it too.
    const session = await GatewayClient.ready(`ws://127.0.0.1:${port}/gateway`, member.token);
    try {
      const create = await session.dispatch('GUILD_CREATE');
      expect(create.d.members).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            user: expect.objectContaining({ id: member.userId }),
            nick: 'Countess',
          }),
        ]),
      );
    } finally {
      session.ws.terminate();
    }
    const cleared = await patchMember(owner.token, member.userId, { nick: null }).expect(200);
    expect(cleared.body.nick).toBeNull();
  });

  it('one’s own nickname needs CHANGE_NICKNAME (PATCH @me)', async () => {
    const denied = await http(app)
      .patch(`/api/v10/guilds/${g.guildId}/members/@me`)
      .set('Authorization', member.token)
      .send({ nick: 'Me' })
      .expect(403);
    expect(denied.body).toEqual({ code: 50013, message: 'Missing Permissions' });
    const nickRole = await giveRole(app, g.guildId, member.userId, Permissions.CHANGE_NICKNAME);
    const res = await http(app)
      .patch(`/v1/guilds/${g.guildId}/members/@me`)
      .set('Authorization', member.token)
      .send({ nick: 'Me' })
      .expect(200);
    expect(res.body).toEqual(
      expect.objectContaining({ nick: 'Me', user: expect.objectContaining({ id: member.userId }) }),
    );
    await memberRole('delete', owner.token, member.userId, nickRole).expect(204);
    const outside = await http(app)
      .patch(`/v1/guilds/${g.guildId}/members/@me`)
      .set('Authorization', outsider.token)
      .send({ nick: 'x' })
      .expect(404);
    expect(outside.body.code).toBe('UNKNOWN_GUILD');
  });

  it('sets roles (MANAGE_ROLES) below the caller’s highest role; refuses unknown, managed and higher roles', async () => {
    const res = await patchMember(mod.token, member.userId, { roles: [low] }).expect(200);
    expect(res.body.roles).toEqual([low]);
    await membersSession.next(
      (f) =>
        f.t === 'GUILD_MEMBER_UPDATE' && f.d.user.id === member.userId && f.d.roles.includes(low),
    );
    const unknown = await patchMember(mod.token, member.userId, { roles: [low, UNKNOWN] }).expect(
      400,
    );
    expect(unknown.body).toEqual({
      code: 'INVALID_FORM_BODY',
      message: expect.any(String),
      errors: [{ path: 'roles.1', code: 'UNKNOWN_ROLE', message: expect.any(String) }],
    });
    const above = await patchMember(mod.token, member.userId, { roles: [low, high] }).expect(403);
    expect(above.body.code).toBe('MISSING_PERMISSIONS');
    const managed = (
      await http(app).get(`/v1/guilds/${g.guildId}/roles`).set('Authorization', owner.token)
    ).body.find((r: { tags?: { bot_id: string } }) => r.tags?.bot_id === bot.botUserId)
      .id as string;
    const byHand = await patchMember(owner.token, member.userId, { roles: [low, managed] }).expect(
      400,
    );
    expect(byHand.body.code).toBe('INVALID_ROLE');
    const plain = await patchMember(member.token, member.userId, { roles: [] }).expect(403);
    expect(plain.body.code).toBe('MISSING_PERMISSIONS');
  });

  it('acts only on members ranked below the caller (403 on a peer and the owner); 404 for non-members', async () => {
    for (const res of [
      await patchMember(mod.token, peer.userId, { nick: 'peer' }),
      await patchMember(mod.token, owner.userId, { nick: 'boss' }),
      await memberRole('put', mod.token, peer.userId, low),
      await http(app)
        .delete(`/v1/guilds/${g.guildId}/members/${peer.userId}`)
        .set('Authorization', mod.token),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('MISSING_PERMISSIONS');
    }
    const discord = await patchMember(mod.token, peer.userId, { roles: [] }, '/api/v10').expect(
      403,
    );
    expect(discord.body).toEqual({ code: 50013, message: 'Missing Permissions' });
    const nonMember = await patchMember(mod.token, outsider.userId, { nick: 'x' }).expect(404);
    expect(nonMember.body.code).toBe('UNKNOWN_MEMBER');
    const discordUnknown = await patchMember(
      owner.token,
      UNKNOWN,
      { nick: 'x' },
      '/api/v10',
    ).expect(404);
    expect(discordUnknown.body).toEqual({ code: 10007, message: 'Unknown Member' });
    const outside = await patchMember(outsider.token, member.userId, { nick: 'x' }).expect(404);
    expect(outside.body.code).toBe('UNKNOWN_GUILD');
  });

  it('gives and takes one role (204, GUILD_MEMBER_UPDATE); unknown roles and members are 404', async () => {
    const give = await memberRole('put', mod.token, member.userId, low).expect(204);
    expect(give.body).toEqual({});
    await memberRole('delete', mod.token, member.userId, low).expect(204);
    await membersSession.next(
      (f) =>
        f.t === 'GUILD_MEMBER_UPDATE' && f.d.user.id === member.userId && f.d.roles.length === 0,
    );
    await memberRole('put', mod.token, member.userId, low).expect(204);
    await membersSession.next(
      (f) =>
        f.t === 'GUILD_MEMBER_UPDATE' && f.d.user.id === member.userId && f.d.roles.includes(low),
    );
    const read = await http(app)
      .get(`/v1/guilds/${g.guildId}/members/${member.userId}`)
      .set('Authorization', owner.token)
      .expect(200);
    expect(read.body.roles).toEqual([low]);

    const unknownRole = await memberRole(
      'put',
      mod.token,
      member.userId,
      UNKNOWN,
      '/api/v10',
    ).expect(404);
    expect(unknownRole.body).toEqual({ code: 10011, message: 'Unknown Role' });
    const v1Role = await memberRole('delete', mod.token, member.userId, UNKNOWN).expect(404);
    expect(v1Role.body.code).toBe('UNKNOWN_ROLE');
    const unknownMember = await memberRole('put', mod.token, UNKNOWN, low, '/api/v10').expect(404);
    expect(unknownMember.body).toEqual({ code: 10007, message: 'Unknown Member' });
    const denied = await memberRole('put', member.token, member.userId, low).expect(403);
    expect(denied.body.code).toBe('MISSING_PERMISSIONS');
    const above = await memberRole('put', mod.token, member.userId, high).expect(403);
    expect(above.body.code).toBe('MISSING_PERMISSIONS');
  });

  it('kicks (KICK_MEMBERS, 204, GUILD_MEMBER_REMOVE); never the owner; not without the permission', async () => {
    const target = await registerUser(app);
    await addMember(app, g.guildId, target.userId);
    const denied = await http(app)
      .delete(`/api/v10/guilds/${g.guildId}/members/${target.userId}`)
      .set('Authorization', member.token)
      .expect(403);
    expect(denied.body).toEqual({ code: 50013, message: 'Missing Permissions' });
    const res = await http(app)
      .delete(`/v1/guilds/${g.guildId}/members/${target.userId}`)
      .set('Authorization', mod.token)
      .expect(204);
    expect(res.body).toEqual({});
    const event = await membersSession.next(
      (f) => f.t === 'GUILD_MEMBER_REMOVE' && f.d.user.id === target.userId,
    );
    expect(event.d).toEqual({
      guild_id: g.guildId,
      user: expect.objectContaining({ id: target.userId }),
    });
    const again = await http(app)
      .delete(`/api/v10/guilds/${g.guildId}/members/${target.userId}`)
      .set('Authorization', mod.token)
      .expect(404);
    expect(again.body).toEqual({ code: 10007, message: 'Unknown Member' });
    const ownerKick = await http(app)
      .delete(`/v1/guilds/${g.guildId}/members/${owner.userId}`)
      .set('Authorization', mod.token)
      .expect(400);
    expect(ownerKick.body.code).toBe('CANNOT_REMOVE_GUILD_OWNER');
  });
});
