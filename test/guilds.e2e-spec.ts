import type { ParleyApp } from '../src/app.setup';
import { DataSource } from 'typeorm';
import { GuildAccessService } from '../src/modules/guilds/guild-access.service';
import { GuildsService } from '../src/modules/guilds/guilds.service';
import { Permissions } from '../src/modules/guilds/permissions';
import { createTestApp, http } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import { PLAIN_MESSAGE_FIELDS } from './helpers/messages';
import { addMember, createGuild, PNG_DATA_URI } from './helpers/guild-factories';

describe('guild core', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let other: TestUser;
  const outsiderId = () => other.userId;

  beforeAll(async () => {
    app = await createTestApp();
    owner = await registerUser(app);
    other = await registerUser(app);
  });
  afterAll(() => app.close());

  it('answers 401 without credentials on every protected route', async () => {
    const id = '1234567890';
    const calls = [
      http(app).post('/v1/guilds').send({ name: 'x' }),
      http(app).get(`/v1/guilds/${id}`),
      http(app).patch(`/v1/guilds/${id}`).send({}),
      http(app).get(`/v1/guilds/${id}/channels`),
      http(app).post(`/v1/guilds/${id}/channels`).send({ name: 'x' }),
      http(app).put(`/v1/guilds/${id}/members/${id}`).send({}),
      http(app).delete(`/v1/guilds/${id}/members/${id}`),
      http(app).get(`/v1/channels/${id}`),
      http(app).get(`/v1/channels/${id}/messages`),
      http(app).post(`/v1/channels/${id}/messages`).send({ content: 'x' }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
  });

  it('creates a guild with @everyone, the owner as member and a general channel', async () => {
    const res = await http(app)
      .post('/v1/guilds')
      .set('Authorization', owner.token)
      .send({ name: 'My Guild', icon: PNG_DATA_URI });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name: 'My Guild',
      icon: expect.stringMatching(/^[0-9a-f]{32}$/),
      banner: null,
      owner_id: owner.userId,
      created_at: expect.any(String),
    });
    const get = await http(app).get(`/v1/guilds/${res.body.id}`).set('Authorization', owner.token);
    expect(get.status).toBe(200);
    expect(get.body).toEqual(res.body);
    const channels = await http(app)
      .get(`/v1/guilds/${res.body.id}/channels`)
      .set('Authorization', owner.token);
    expect(channels.status).toBe(200);
    expect(channels.body).toEqual([
      { id: expect.any(String), guild_id: res.body.id, name: 'general', type: 0, position: 0 },
    ]);
  });

  it('validates guild names and icons', async () => {
    const short = await http(app)
      .post('/v1/guilds')
      .set('Authorization', owner.token)
      .send({ name: 'x' });
    expect(short.status).toBe(400);
    expect(short.body.code).toBe('INVALID_FORM_BODY');
    expect(short.body.errors[0].path).toBe('name');
    const icon = await http(app)
      .post('/v1/guilds')
      .set('Authorization', owner.token)
      .send({ name: 'ok name', icon: 'data:image/png;base64,AAAA' });
    expect(icon.status).toBe(400);
    expect(icon.body).toMatchObject({ code: 'INVALID_FORM_BODY', errors: [{ path: 'icon' }] });
  });

  it('hides guilds of which the caller is not a member (404)', async () => {
    const g = await createGuild(app, owner.token);
    const res = await http(app).get(`/v1/guilds/${g.guildId}`).set('Authorization', other.token);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('UNKNOWN_GUILD');
    const ch = await http(app).get(`/v1/channels/${g.channelId}`).set('Authorization', other.token);
    expect(ch.status).toBe(404);
    expect(ch.body.code).toBe('UNKNOWN_CHANNEL');
    const bad = await http(app).get('/v1/guilds/not-an-id').set('Authorization', owner.token);
    expect(bad.status).toBe(404);
  });

  it('PATCH needs MANAGE_GUILD', async () => {
    const g = await createGuild(app, owner.token);
    const member = await registerUser(app);
    await addMember(app, g.guildId, member.userId);
    const denied = await http(app)
      .patch(`/v1/guilds/${g.guildId}`)
      .set('Authorization', member.token)
      .send({ name: 'hijacked' });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('MISSING_PERMISSIONS');
    const ok = await http(app)
      .patch(`/v1/guilds/${g.guildId}`)
      .set('Authorization', owner.token)
      .send({ name: 'Renamed', banner: PNG_DATA_URI });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      name: 'Renamed',
      banner: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const cleared = await http(app)
      .patch(`/v1/guilds/${g.guildId}`)
      .set('Authorization', owner.token)
      .send({ banner: null });
    expect(cleared.body.banner).toBeNull();
  });

  it('creates channels with MANAGE_CHANNELS only', async () => {
    const g = await createGuild(app, owner.token);
    const member = await registerUser(app);
    await addMember(app, g.guildId, member.userId);
    const denied = await http(app)
      .post(`/v1/guilds/${g.guildId}/channels`)
      .set('Authorization', member.token)
      .send({ name: 'nope' });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('MISSING_PERMISSIONS');
    const res = await http(app)
      .post(`/v1/guilds/${g.guildId}/channels`)
      .set('Authorization', owner.token)
      .send({ name: 'Dev Talk' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      guild_id: g.guildId,
      name: 'dev-talk',
      type: 0,
      position: 1,
    });
    const get = await http(app)
      .get(`/v1/channels/${res.body.id}`)
      .set('Authorization', member.token);
    expect(get.status).toBe(200);
    expect(get.body).toEqual(res.body);
  });

  it('posts messages and pages them with before/after/limit', async () => {
    const g = await createGuild(app, owner.token);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await http(app)
        .post(`/v1/channels/${g.channelId}/messages`)
        .set('Authorization', owner.token)
        .send({ content: `m${i}` });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const withEmbed = await http(app)
      .post(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', owner.token)
      .send({ embeds: [{ title: 'T', color: 255, bogus: 1 }] });
    expect(withEmbed.status).toBe(201);
    expect(withEmbed.body).toMatchObject({
      channel_id: g.channelId,
      content: '',
      embeds: [{ title: 'T', color: 255 }],
      author: { id: owner.userId, username: owner.username },
    });
    expect(withEmbed.body.webhook_id).toBeUndefined();

    const all = await http(app)
      .get(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', owner.token);
    expect(all.status).toBe(200);
    expect(all.body.map((m: { id: string }) => m.id)).toEqual([
      withEmbed.body.id,
      ...[...ids].reverse(),
    ]);
    expect(all.body[1]).toEqual({
      id: ids[4],
      channel_id: g.channelId,
      content: 'm4',
      embeds: [],
      author: expect.objectContaining({ id: owner.userId }),
      created_at: expect.any(String),
      ...PLAIN_MESSAGE_FIELDS,
      // The author's membership, as Discord puts it on guild messages.
      member: expect.objectContaining({ roles: [], joined_at: expect.any(String) }),
    });

    const limited = await http(app)
      .get(`/v1/channels/${g.channelId}/messages?limit=2`)
      .set('Authorization', owner.token);
    expect(limited.body.map((m: { id: string }) => m.id)).toEqual([withEmbed.body.id, ids[4]]);
    const before = await http(app)
      .get(`/v1/channels/${g.channelId}/messages?before=${ids[3]}&limit=2`)
      .set('Authorization', owner.token);
    expect(before.body.map((m: { content: string }) => m.content)).toEqual(['m2', 'm1']);
    const after = await http(app)
      .get(`/v1/channels/${g.channelId}/messages?after=${ids[0]}&limit=2`)
      .set('Authorization', owner.token);
    expect(after.body.map((m: { content: string }) => m.content)).toEqual(['m2', 'm1']);
    const between = await http(app)
      .get(`/v1/channels/${g.channelId}/messages?after=${ids[0]}&before=${ids[3]}`)
      .set('Authorization', owner.token);
    expect(between.body.map((m: { content: string }) => m.content)).toEqual(['m2', 'm1']);

    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'before=xyz']) {
      const bad = await http(app)
        .get(`/v1/channels/${g.channelId}/messages?${q}`)
        .set('Authorization', owner.token);
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('INVALID_FORM_BODY');
    }
  });

  it('refuses empty or over-long messages', async () => {
    const g = await createGuild(app, owner.token);
    const empty = await http(app)
      .post(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', owner.token)
      .send({});
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('EMPTY_MESSAGE');
    const long = await http(app)
      .post(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', owner.token)
      .send({ content: 'x'.repeat(2001) });
    expect(long.status).toBe(400);
    expect(long.body.errors[0].path).toBe('content');
  });

  it('removes members; the owner cannot be removed; a session cannot add anyone', async () => {
    const g = await createGuild(app, owner.token);
    const user = await registerUser(app);
    const nonMember = await http(app)
      .post(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', user.token)
      .send({ content: 'hi' });
    expect(nonMember.status).toBe(404);

    // Nobody, not even the owner, puts a user in a guild without the user's consent (a bot
    // with their guilds.join grant: test/security/grants.e2e-spec.ts).
    const byOwner = await http(app)
      .put(`/v1/guilds/${g.guildId}/members/${user.userId}`)
      .set('Authorization', owner.token)
      .send({ access_token: 'x' });
    expect(byOwner.status).toBe(403);
    expect(byOwner.body.code).toBe('ACCESS_DENIED');

    await addMember(app, g.guildId, user.userId);
    const posted = await http(app)
      .post(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', user.token)
      .send({ content: 'hi' });
    expect(posted.status).toBe(201);

    // Members without ADMINISTRATOR cannot remove others.
    const third = await registerUser(app);
    await addMember(app, g.guildId, third.userId);
    const notAdmin = await http(app)
      .delete(`/v1/guilds/${g.guildId}/members/${third.userId}`)
      .set('Authorization', user.token);
    expect(notAdmin.status).toBe(403);
    expect(notAdmin.body.code).toBe('MISSING_PERMISSIONS');
    const kickOwner = await http(app)
      .delete(`/v1/guilds/${g.guildId}/members/${owner.userId}`)
      .set('Authorization', owner.token);
    expect(kickOwner.status).toBe(400);
    expect(kickOwner.body.code).toBe('CANNOT_REMOVE_GUILD_OWNER');

    const removed = await http(app)
      .delete(`/v1/guilds/${g.guildId}/members/${user.userId}`)
      .set('Authorization', owner.token);
    expect(removed.status).toBe(204);
    const gone = await http(app).get(`/v1/guilds/${g.guildId}`).set('Authorization', user.token);
    expect(gone.status).toBe(404);
    const twice = await http(app)
      .delete(`/v1/guilds/${g.guildId}/members/${user.userId}`)
      .set('Authorization', owner.token);
    expect(twice.status).toBe(404);
    expect(twice.body.code).toBe('UNKNOWN_MEMBER');
  });

  it('adds a bot member with its own role, idempotently (for OAuth2)', async () => {
    const g = await createGuild(app, owner.token);
    const bot = await registerUser(app);
    const guilds = app.get(GuildsService);
    const access = app.get(GuildAccessService);
    const perms = Permissions.MANAGE_WEBHOOKS | Permissions.SEND_MESSAGES;
    await guilds.addBotMember(g.guildId, bot.userId, perms, 'My Bot');
    await guilds.addBotMember(g.guildId, bot.userId, perms, 'My Bot');
    const granted = await access.requirePermission(
      bot.userId,
      g.guildId,
      Permissions.MANAGE_WEBHOOKS,
    );
    expect(granted.isOwner).toBe(false);
    await expect(
      access.requirePermission(bot.userId, g.guildId, Permissions.MANAGE_GUILD),
    ).rejects.toMatchObject({ code: 'MISSING_PERMISSIONS', status: 403 });
    await expect(access.requirePermission(outsiderId(), g.guildId, 0n)).rejects.toMatchObject({
      code: 'UNKNOWN_GUILD',
      status: 404,
    });
    const roles = await app
      .get(DataSource)
      .query<Array<{ name: string; permissions: string }>>(
        'SELECT name, permissions::text FROM guild_roles WHERE guild_id = $1 AND id <> guild_id',
        [g.guildId],
      );
    expect(roles).toEqual([{ name: 'My Bot', permissions: perms.toString() }]);
    await expect(guilds.addBotMember('999999999', bot.userId, perms, 'x')).rejects.toMatchObject({
      code: 'UNKNOWN_GUILD',
    });
  });

  it('publishes the guild routes in the OpenAPI document with security', async () => {
    const res = await http(app).get('/docs/openapi.json');
    expect(res.status).toBe(200);
    const paths = res.body.paths as Record<string, Record<string, { security?: unknown[] }>>;
    expect(paths['/v1/guilds/{guild_id}'].patch.security).toEqual(
      expect.arrayContaining([{ sessionToken: [] }, { botToken: [] }]),
    );
    expect(paths['/v1/webhooks/{webhook_id}/{token}/repohost'].post).toBeDefined();
    for (const name of [
      'RepoHostWebhook',
      'ErrorTrackerWebhook',
      'ChatCompatWebhookRequest',
      'WebhookResponse',
      'MessageResponse',
    ]) {
      expect(res.body.components.schemas[name]).toBeDefined();
    }
  });
});
