import type { ParleyApp } from '../src/app.setup';
import { createTestApp, http } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import { addMember, createGuild, type TestGuild } from './helpers/guild-factories';
import {
  createApplication,
  installBot,
  MEMBERS_INTENT_FLAG,
  setApplicationFlags,
  type TestApplication,
} from './helpers/oauth2-factories';

const UNKNOWN = '1234567890123456789';

/** Discord's member and user reads: GET /users/{id}, /guilds/{id}/members[/{user_id}]. */
describe('members and users (Discord’s reads)', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let member: TestUser;
  let outsider: TestUser;
  let g: TestGuild;
  let plain: TestApplication;
  let privileged: TestApplication;

  beforeAll(async () => {
    app = await createTestApp();
    [owner, member, outsider] = await Promise.all([
      registerUser(app),
      registerUser(app),
      registerUser(app),
    ]);
    g = await createGuild(app, owner.token);
    await addMember(app, g.guildId, member.userId);
    plain = await createApplication(app, owner);
    privileged = await createApplication(app, owner);
    await setApplicationFlags(app, owner, privileged, MEMBERS_INTENT_FLAG);
    await installBot(app, owner, plain, g.guildId);
    await installBot(app, owner, privileged, g.guildId);
  });

  afterAll(() => app?.close());

  it('answers 401 without credentials on each route', async () => {
    for (const path of [
      `/v1/users/${owner.userId}`,
      `/v1/guilds/${g.guildId}/members/${owner.userId}`,
      `/v1/guilds/${g.guildId}/members`,
    ]) {
      const res = await http(app).get(path);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
  });

  it('GET /users/{id}: anyone’s public profile; an unknown one is 404 (10013 on Discord’s paths)', async () => {
    const res = await http(app)
      .get(`/v1/users/${member.userId}`)
      .set('Authorization', `Bot ${plain.botToken}`)
      .expect(200);
    expect(res.body).toEqual({
      id: member.userId,
      username: expect.any(String),
      discriminator: expect.stringMatching(/^\d{4}$/),
      global_name: null,
      avatar: null,
      avatar_color: null,
      flags: 0,
    });
    expect(res.body).not.toHaveProperty('email');
    const unknown = await http(app).get(`/v1/users/${UNKNOWN}`).set('Authorization', owner.token);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('UNKNOWN_USER');
    const discord = await http(app)
      .get(`/api/v10/users/${UNKNOWN}`)
      .set('Authorization', owner.token)
      .expect(404);
    expect(discord.body).toEqual({ code: 10013, message: 'Unknown User' });
  });

  it('GET a member: Discord’s member object to any member; 404 to outsiders and for non-members', async () => {
    const res = await http(app)
      .get(`/api/v10/guilds/${g.guildId}/members/${member.userId}`)
      .set('Authorization', `Bot ${plain.botToken}`)
      .expect(200);
    expect(res.body).toEqual({
      user: expect.objectContaining({ id: member.userId }),
      roles: [],
      joined_at: expect.any(String),
      nick: null,
      avatar: null,
      banner: null,
      premium_since: null,
      deaf: false,
      mute: false,
      flags: 0,
      pending: false,
      communication_disabled_until: null,
    });
    const outside = await http(app)
      .get(`/api/v10/guilds/${g.guildId}/members/${member.userId}`)
      .set('Authorization', outsider.token)
      .expect(404);
    expect(outside.body).toEqual({ code: 10004, message: 'Unknown Guild' });
    const nonMember = await http(app)
      .get(`/v1/guilds/${g.guildId}/members/${outsider.userId}`)
      .set('Authorization', member.token)
      .expect(404);
    expect(nonMember.body.code).toBe('UNKNOWN_MEMBER');
    const discord = await http(app)
      .get(`/api/v10/guilds/${g.guildId}/members/${outsider.userId}`)
      .set('Authorization', member.token)
      .expect(404);
    expect(discord.body).toEqual({ code: 10007, message: 'Unknown Member' });
  });

  it('lists members in user id order with limit and after; a bot needs GUILD_MEMBERS', async () => {
    const denied = await http(app)
      .get(`/v1/guilds/${g.guildId}/members?limit=10`)
      .set('Authorization', `Bot ${plain.botToken}`)
      .expect(403);
    expect(denied.body.code).toBe('ACCESS_DENIED');
    const discordDenied = await http(app)
      .get(`/api/v10/guilds/${g.guildId}/members?limit=10`)
      .set('Authorization', `Bot ${plain.botToken}`)
      .expect(403);
    expect(discordDenied.body).toEqual({ code: 50001, message: 'Missing Access' });

    const everyone = [owner.userId, member.userId, plain.botUserId, privileged.botUserId].sort(
      (a, b) => (BigInt(a) < BigInt(b) ? -1 : 1),
    );
    const all = await http(app)
      .get(`/api/v10/guilds/${g.guildId}/members?limit=1000`)
      .set('Authorization', `Bot ${privileged.botToken}`)
      .expect(200);
    expect(all.body.map((m: { user: { id: string } }) => m.user.id)).toEqual(everyone);
    const first = await http(app)
      .get(`/v1/guilds/${g.guildId}/members`)
      .set('Authorization', member.token)
      .expect(200);
    expect(first.body.map((m: { user: { id: string } }) => m.user.id)).toEqual([everyone[0]]);
    const next = await http(app)
      .get(`/v1/guilds/${g.guildId}/members?limit=2&after=${everyone[0]}`)
      .set('Authorization', member.token)
      .expect(200);
    expect(next.body.map((m: { user: { id: string } }) => m.user.id)).toEqual(everyone.slice(1, 3));
    const tooMany = await http(app)
      .get(`/v1/guilds/${g.guildId}/members?limit=1001`)
      .set('Authorization', member.token)
      .expect(400);
    expect(tooMany.body.code).toBe('INVALID_FORM_BODY');
    await http(app)
      .get(`/v1/guilds/${g.guildId}/members`)
      .set('Authorization', outsider.token)
      .expect(404);
  });
});
