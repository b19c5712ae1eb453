import type { ParleyApp } from '../src/app.setup';
import { createTestApp, http } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import { GatewayClient } from './helpers/gateway-client';
import { addMember, createGuild, createWebhook, type TestGuild } from './helpers/guild-factories';
import { serverPort } from './helpers/ports';

/** Discord's Modify Channel and Delete Channel (MANAGE_CHANNELS), announced to the guild. */
describe('channels: update and delete', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let member: TestUser;
  let outsider: TestUser;
  let g: TestGuild;
  let watcher: GatewayClient;

  beforeAll(async () => {
    const port = await serverPort();
    app = await createTestApp();
    await app.listen(port, '127.0.0.1');
    [owner, member, outsider] = await Promise.all([
      registerUser(app),
      registerUser(app),
      registerUser(app),
    ]);
    g = await createGuild(app, owner.token);
    await addMember(app, g.guildId, member.userId);
    // The member watches the guild on the gateway (a user session gets every event it may see).
    watcher = await GatewayClient.ready(`ws://127.0.0.1:${port}/gateway`, member.token);
  });

  afterAll(async () => {
    watcher?.ws.terminate();
    await app?.close();
  });

  const newChannel = async (name: string): Promise<string> => {
    const res = await http(app)
      .post(`/v1/guilds/${g.guildId}/channels`)
      .set('Authorization', owner.token)
      .send({ name })
      .expect(201);
    return res.body.id as string;
  };

  it('answers 401 without credentials', async () => {
    for (const res of [
      await http(app).patch(`/v1/channels/${g.channelId}`).send({ name: 'x' }),
      await http(app).delete(`/v1/channels/${g.channelId}`),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
  });

  it('refuses members without MANAGE_CHANNELS (403) and outsiders (404)', async () => {
    const patch = await http(app)
      .patch(`/v1/channels/${g.channelId}`)
      .set('Authorization', member.token)
      .send({ name: 'mine' })
      .expect(403);
    expect(patch.body.code).toBe('MISSING_PERMISSIONS');
    const discord = await http(app)
      .delete(`/api/v10/channels/${g.channelId}`)
      .set('Authorization', member.token)
      .expect(403);
    expect(discord.body).toEqual({ code: 50013, message: 'Missing Permissions' });
    const outside = await http(app)
      .patch(`/api/v10/channels/${g.channelId}`)
      .set('Authorization', outsider.token)
      .send({ name: 'x' })
      .expect(404);
    expect(outside.body).toEqual({ code: 10003, message: 'Unknown Channel' });
    const blank = await http(app)
      .patch(`/v1/channels/${g.channelId}`)
      .set('Authorization', owner.token)
      .send({ name: '', position: -1 })
      .expect(400);
    expect(blank.body.code).toBe('INVALID_FORM_BODY');
  });

  it('renames and moves a channel: CHANNEL_UPDATE to the guild', async () => {
    const id = await newChannel('to rename');
    const res = await http(app)
      .patch(`/v1/channels/${id}`)
      .set('Authorization', owner.token)
      .send({ name: 'Release Notes', position: 7 })
      .expect(200);
    expect(res.body).toEqual({
      id,
      guild_id: g.guildId,
      name: 'release-notes',
      type: 0,
      position: 7,
    });
    const event = await watcher.next((f) => f.t === 'CHANNEL_UPDATE' && f.d.id === id);
    expect(event.d).toMatchObject({ id, guild_id: g.guildId, name: 'release-notes', position: 7 });
    const read = await http(app).get(`/v1/channels/${id}`).set('Authorization', member.token);
    expect(read.body.name).toBe('release-notes');
  });

  it('deletes a channel with its messages and webhooks: CHANNEL_DELETE and WEBHOOKS_UPDATE', async () => {
    const id = await newChannel('doomed');
    const hook = await createWebhook(app, owner.token, id);
    await http(app)
      .post(`/v1/channels/${id}/messages`)
      .set('Authorization', owner.token)
      .send({ content: 'gone soon' })
      .expect(201);
    const res = await http(app)
      .delete(`/api/v10/channels/${id}`)
      .set('Authorization', owner.token)
      .expect(200);
    expect(res.body).toMatchObject({ id, name: 'doomed', guild_id: g.guildId });
    const deleted = await watcher.next((f) => f.t === 'CHANNEL_DELETE' && f.d.id === id);
    expect(deleted.d).toMatchObject({ id, guild_id: g.guildId });
    const hooks = await watcher.next((f) => f.t === 'WEBHOOKS_UPDATE' && f.d.channel_id === id);
    expect(hooks.d).toEqual({ guild_id: g.guildId, channel_id: id });
    await http(app).get(`/v1/channels/${id}`).set('Authorization', owner.token).expect(404);
    await http(app).get(`/v1/webhooks/${hook.id}/${hook.token}`).expect(404);
    const list = await http(app)
      .get(`/v1/guilds/${g.guildId}/channels`)
      .set('Authorization', owner.token)
      .expect(200);
    expect(list.body.map((c: { id: string }) => c.id)).not.toContain(id);
  });
});
