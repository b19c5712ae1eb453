import type { ParleyApp } from '../src/app.setup';
import { Permissions } from '../src/modules/guilds/permissions';
import { createTestApp, http } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import type { GatewayClient } from './helpers/gateway-client';
import { addMember, createGuild, giveRole, type TestGuild } from './helpers/guild-factories';
import { barrier, botSession, INTENT } from './helpers/intent-sessions';
import { createApplication, installBot, type TestApplication } from './helpers/oauth2-factories';
import { serverPort } from './helpers/ports';

const UNKNOWN = '1234567890123456789';

/** Discord's role object, as every role route answers it. */
const roleShape = (fields: Record<string, unknown>) => ({
  id: expect.any(String),
  name: expect.any(String),
  color: 0,
  colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
  hoist: false,
  icon: null,
  unicode_emoji: null,
  position: expect.any(Number),
  permissions: expect.any(String),
  managed: false,
  mentionable: false,
  flags: 0,
  ...fields,
});

/** Discord's role routes: MANAGE_ROLES, the hierarchy, the grant rule, GUILD_ROLE_* events. */
describe('roles (Discord’s role routes)', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let manager: TestUser;
  let member: TestUser;
  let outsider: TestUser;
  let g: TestGuild;
  let managerRole: string;
  let bot: TestApplication;
  let quiet: TestApplication;
  let guildsSession: GatewayClient;
  let messagesSession: GatewayClient;

  beforeAll(async () => {
    const port = await serverPort();
    app = await createTestApp();
    await app.listen(port, '127.0.0.1');
    [owner, manager, member, outsider] = await Promise.all([
      registerUser(app),
      registerUser(app),
      registerUser(app),
      registerUser(app),
    ]);
    g = await createGuild(app, owner.token);
    await addMember(app, g.guildId, manager.userId);
    await addMember(app, g.guildId, member.userId);
    managerRole = await giveRole(
      app,
      g.guildId,
      manager.userId,
      Permissions.MANAGE_ROLES | Permissions.VIEW_CHANNEL | Permissions.SEND_MESSAGES,
    );
    bot = await createApplication(app, owner);
    quiet = await createApplication(app, owner);
    await installBot(app, owner, bot, g.guildId);
    await installBot(app, owner, quiet, g.guildId);
    // The manager's role above the bots' roles (installed after it, so higher).
    await http(app)
      .patch(`/v1/guilds/${g.guildId}/roles`)
      .set('Authorization', owner.token)
      .send([{ id: managerRole, position: 10 }])
      .expect(200);
    guildsSession = await botSession(port, bot.botToken, INTENT.GUILDS | INTENT.GUILD_MESSAGES);
    messagesSession = await botSession(port, quiet.botToken, INTENT.GUILD_MESSAGES);
  });

  afterAll(async () => {
    guildsSession?.ws.terminate();
    messagesSession?.ws.terminate();
    await app?.close();
  });

  const roles = (token = owner.token) =>
    http(app).get(`/v1/guilds/${g.guildId}/roles`).set('Authorization', token);
  const createRole = (token: string, body: Record<string, unknown>) =>
    http(app).post(`/v1/guilds/${g.guildId}/roles`).set('Authorization', token).send(body);

  it('answers 401 without credentials on each route', async () => {
    const base = `/v1/guilds/${g.guildId}/roles`;
    for (const res of [
      await http(app).get(base),
      await http(app).post(base).send({}),
      await http(app).patch(base).send([]),
      await http(app).get(`${base}/${g.guildId}`),
      await http(app).patch(`${base}/${g.guildId}`).send({}),
      await http(app).delete(`${base}/${managerRole}`),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
  });

  it('lists every role to any member, @everyone (the guild’s id) at 0; 404 to outsiders', async () => {
    const res = await roles(member.token).expect(200);
    const everyone = res.body.find((r: { id: string }) => r.id === g.guildId);
    expect(everyone).toEqual(roleShape({ id: g.guildId, name: '@everyone', position: 0 }));
    const botRole = res.body.find(
      (r: { tags?: { bot_id: string } }) => r.tags?.bot_id === bot.botUserId,
    );
    expect(botRole).toEqual(roleShape({ managed: true, tags: { bot_id: bot.botUserId } }));
    const one = await http(app)
      .get(`/v1/guilds/${g.guildId}/roles/${managerRole}`)
      .set('Authorization', member.token)
      .expect(200);
    expect(one.body).toEqual(roleShape({ id: managerRole, name: 'test role' }));

    const outside = await roles(outsider.token).expect(404);
    expect(outside.body.code).toBe('UNKNOWN_GUILD');
    const unknown = await http(app)
      .get(`/v1/guilds/${g.guildId}/roles/${UNKNOWN}`)
      .set('Authorization', member.token)
      .expect(404);
    expect(unknown.body).toEqual({ code: 'UNKNOWN_ROLE', message: 'Unknown role.' });
    const discord = await http(app)
      .get(`/api/v10/guilds/${g.guildId}/roles/${UNKNOWN}`)
      .set('Authorization', member.token)
      .expect(404);
    expect(discord.body).toEqual({ code: 10011, message: 'Unknown Role' });
  });

  it('creates a role (200, at the bottom) announced as GUILD_ROLE_CREATE to GUILDS sessions only', async () => {
    const res = await createRole(manager.token, {
      name: 'Helpers',
      permissions: String(Permissions.SEND_MESSAGES),
      color: 0x3498db,
      hoist: true,
      mentionable: true,
      unicode_emoji: '🛠️',
      icon: null,
    }).expect(200);
    expect(res.body).toEqual(
      roleShape({
        name: 'Helpers',
        permissions: String(Permissions.SEND_MESSAGES),
        color: 0x3498db,
        colors: { primary_color: 0x3498db, secondary_color: null, tertiary_color: null },
        hoist: true,
        mentionable: true,
        unicode_emoji: '🛠️',
        position: 1,
      }),
    );
    const event = await guildsSession.next(
      (f) => f.t === 'GUILD_ROLE_CREATE' && f.d.role.id === res.body.id,
    );
    expect(event.d).toEqual({ guild_id: g.guildId, role: res.body });
    await barrier(app, owner.token, g.channelId, [messagesSession]);
    expect(messagesSession.dispatches('GUILD_ROLE_CREATE')).toEqual([]);

    const defaults = await createRole(owner.token, { name: null }).expect(200);
    expect(defaults.body).toEqual(roleShape({ name: 'new role', permissions: '0', position: 1 }));
  });

  it('refuses a role with a permission the caller lacks (the grant rule), and callers without MANAGE_ROLES', async () => {
    const escalate = await createRole(manager.token, {
      name: 'Admins',
      permissions: String(Permissions.ADMINISTRATOR | Permissions.SEND_MESSAGES),
    }).expect(403);
    expect(escalate.body).toEqual({
      code: 'MISSING_PERMISSIONS',
      message: 'You can only grant permissions you hold yourself.',
      missing_permissions: String(Permissions.ADMINISTRATOR),
    });
    const discord = await http(app)
      .post(`/api/v10/guilds/${g.guildId}/roles`)
      .set('Authorization', member.token)
      .send({ name: 'mine' })
      .expect(403);
    expect(discord.body).toEqual({ code: 50013, message: 'Missing Permissions' });
    const outside = await createRole(outsider.token, { name: 'x' }).expect(404);
    expect(outside.body.code).toBe('UNKNOWN_GUILD');
    const bad = await createRole(owner.token, { permissions: 'all' }).expect(400);
    expect(bad.body.errors).toEqual([
      expect.objectContaining({ path: 'permissions', code: 'PERMISSIONS_INVALID' }),
    ]);
  });

  it('modifies a role below the caller’s highest role (GUILD_ROLE_UPDATE); not one at or above it', async () => {
    const low = (await createRole(owner.token, { name: 'low' }).expect(200)).body;
    const res = await http(app)
      .patch(`/v1/guilds/${g.guildId}/roles/${low.id}`)
      .set('Authorization', manager.token)
      .send({ name: 'renamed', color: 0xff0000, permissions: String(Permissions.VIEW_CHANNEL) })
      .expect(200);
    expect(res.body).toEqual(
      roleShape({
        id: low.id,
        name: 'renamed',
        color: 0xff0000,
        colors: { primary_color: 0xff0000, secondary_color: null, tertiary_color: null },
        permissions: String(Permissions.VIEW_CHANNEL),
        position: 1,
      }),
    );
    const event = await guildsSession.next(
      (f) => f.t === 'GUILD_ROLE_UPDATE' && f.d.role.id === low.id && f.d.role.name === 'renamed',
    );
    expect(event.d).toEqual({ guild_id: g.guildId, role: res.body });

    // The manager's own role is not below their highest role.
    const own = await http(app)
      .patch(`/v1/guilds/${g.guildId}/roles/${managerRole}`)
      .set('Authorization', manager.token)
      .send({ name: 'mine now' })
      .expect(403);
    expect(own.body.code).toBe('MISSING_PERMISSIONS');
    const grant = await http(app)
      .patch(`/api/v10/guilds/${g.guildId}/roles/${low.id}`)
      .set('Authorization', manager.token)
      .send({ permissions: String(Permissions.KICK_MEMBERS) })
      .expect(403);
    expect(grant.body).toEqual({ code: 50013, message: 'Missing Permissions' });
    const plain = await http(app)
      .patch(`/v1/guilds/${g.guildId}/roles/${low.id}`)
      .set('Authorization', member.token)
      .send({ name: 'x' })
      .expect(403);
    expect(plain.body.code).toBe('MISSING_PERMISSIONS');
    const unknown = await http(app)
      .patch(`/api/v10/guilds/${g.guildId}/roles/${UNKNOWN}`)
      .set('Authorization', owner.token)
      .send({ name: 'x' })
      .expect(404);
    expect(unknown.body).toEqual({ code: 10011, message: 'Unknown Role' });
  });

  it('moves roles (the whole list back); not to or from at/above the caller’s highest role', async () => {
    const a = (await createRole(owner.token, { name: 'a' }).expect(200)).body;
    const res = await http(app)
      .patch(`/v1/guilds/${g.guildId}/roles`)
      .set('Authorization', manager.token)
      .send([{ id: a.id, position: 3 }])
      .expect(200);
    const listed = (await roles().expect(200)).body;
    expect(res.body).toEqual(listed);
    expect(res.body.find((r: { id: string }) => r.id === a.id).position).toBe(3);
    await guildsSession.next(
      (f) => f.t === 'GUILD_ROLE_UPDATE' && f.d.role.id === a.id && f.d.role.position === 3,
    );

    const top = listed.find((r: { id: string }) => r.id === managerRole).position as number;
    const above = await http(app)
      .patch(`/v1/guilds/${g.guildId}/roles`)
      .set('Authorization', manager.token)
      .send([{ id: a.id, position: top + 1 }])
      .expect(403);
    expect(above.body.code).toBe('MISSING_PERMISSIONS');
    // The owner may put it above the manager; then the manager can no longer touch it.
    await http(app)
      .patch(`/v1/guilds/${g.guildId}/roles`)
      .set('Authorization', owner.token)
      .send([{ id: a.id, position: top + 1 }])
      .expect(200);
    for (const res2 of [
      await http(app)
        .patch(`/v1/guilds/${g.guildId}/roles`)
        .set('Authorization', manager.token)
        .send([{ id: a.id, position: 2 }]),
      await http(app)
        .patch(`/v1/guilds/${g.guildId}/roles/${a.id}`)
        .set('Authorization', manager.token)
        .send({ name: 'b' }),
      await http(app)
        .delete(`/v1/guilds/${g.guildId}/roles/${a.id}`)
        .set('Authorization', manager.token),
    ]) {
      expect(res2.status).toBe(403);
      expect(res2.body.code).toBe('MISSING_PERMISSIONS');
    }
    const unknown = await http(app)
      .patch(`/v1/guilds/${g.guildId}/roles`)
      .set('Authorization', owner.token)
      .send([{ id: UNKNOWN, position: 2 }])
      .expect(400);
    expect(unknown.body.errors).toEqual([
      expect.objectContaining({ path: '0.id', code: 'UNKNOWN_ROLE' }),
    ]);
    const notArray = await http(app)
      .patch(`/v1/guilds/${g.guildId}/roles`)
      .set('Authorization', owner.token)
      .send({ id: a.id })
      .expect(400);
    expect(notArray.body.code).toBe('INVALID_FORM_BODY');
    const everyone = await http(app)
      .patch(`/v1/guilds/${g.guildId}/roles`)
      .set('Authorization', owner.token)
      .send([{ id: g.guildId, position: 5 }])
      .expect(400);
    expect(everyone.body.code).toBe('INVALID_ROLE');
    await http(app)
      .patch(`/v1/guilds/${g.guildId}/roles`)
      .set('Authorization', member.token)
      .send([])
      .expect(403);
  });

  it('deletes a role (204): its members lose it, GUILD_ROLE_DELETE; never @everyone or a managed role', async () => {
    const doomed = (await createRole(owner.token, { name: 'doomed' }).expect(200)).body;
    await http(app)
      .put(`/v1/guilds/${g.guildId}/members/${member.userId}/roles/${doomed.id}`)
      .set('Authorization', owner.token)
      .expect(204);
    const res = await http(app)
      .delete(`/v1/guilds/${g.guildId}/roles/${doomed.id}`)
      .set('Authorization', manager.token)
      .expect(204);
    expect(res.body).toEqual({});
    const event = await guildsSession.next(
      (f) => f.t === 'GUILD_ROLE_DELETE' && f.d.role_id === doomed.id,
    );
    expect(event.d).toEqual({ guild_id: g.guildId, role_id: doomed.id });
    const after = await http(app)
      .get(`/v1/guilds/${g.guildId}/members/${member.userId}`)
      .set('Authorization', owner.token)
      .expect(200);
    expect(after.body.roles).toEqual([]);

    const botRole = (await roles().expect(200)).body.find(
      (r: { tags?: { bot_id: string } }) => r.tags?.bot_id === bot.botUserId,
    );
    for (const id of [g.guildId, botRole.id]) {
      const refused = await http(app)
        .delete(`/v1/guilds/${g.guildId}/roles/${id}`)
        .set('Authorization', owner.token)
        .expect(400);
      expect(refused.body.code).toBe('INVALID_ROLE');
    }
    const gone = await http(app)
      .delete(`/api/v10/guilds/${g.guildId}/roles/${doomed.id}`)
      .set('Authorization', owner.token)
      .expect(404);
    expect(gone.body).toEqual({ code: 10011, message: 'Unknown Role' });
    await http(app)
      .delete(`/v1/guilds/${g.guildId}/roles/${managerRole}`)
      .set('Authorization', member.token)
      .expect(403);
  });
});
