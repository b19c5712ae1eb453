import type { ParleyApp } from '../src/app.setup';
import { SNOWFLAKE_EPOCH } from '../src/common/snowflake/snowflake';
import { DataSource } from 'typeorm';
import { createTestApp, http } from './helpers/app';
import { fixtureQuery } from './helpers/fixtures';
import { registerUser, type TestUser } from './helpers/factories';
import { GatewayClient } from './helpers/gateway-client';
import { addMember, createGuild, giveRole, type TestGuild } from './helpers/guild-factories';
import { createApplication, installBot } from './helpers/oauth2-factories';
import { serverPort } from './helpers/ports';

const UNKNOWN = '1234567890123456789';
const MANAGE_MESSAGES = 1n << 13n;
/** GUILDS | GUILD_MESSAGES, with and without GUILD_MESSAGE_TYPING (bots: users get everything). */
const WITH_TYPING = 1 | (1 << 9) | (1 << 11);
const WITHOUT_TYPING = 1 | (1 << 9);

/** Pins (both of Discord's route sets), bulk delete and typing. */
describe('channel message tools: pins, bulk delete, typing', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let moderator: TestUser;
  let member: TestUser;
  let g: TestGuild;
  let watcher: GatewayClient;
  let deaf: GatewayClient;

  beforeAll(async () => {
    const port = await serverPort();
    app = await createTestApp();
    await app.listen(port, '127.0.0.1');
    [owner, moderator, member] = await Promise.all([
      registerUser(app),
      registerUser(app),
      registerUser(app),
    ]);
    g = await createGuild(app, owner.token);
    await addMember(app, g.guildId, moderator.userId);
    await addMember(app, g.guildId, member.userId);
    await giveRole(app, g.guildId, moderator.userId, MANAGE_MESSAGES);
    const [typingBot, deafBot] = await Promise.all([
      createApplication(app, owner),
      createApplication(app, owner),
    ]);
    await installBot(app, owner, typingBot, g.guildId);
    await installBot(app, owner, deafBot, g.guildId);
    const url = `ws://127.0.0.1:${port}/gateway`;
    [watcher, deaf] = await Promise.all([GatewayClient.connect(url), GatewayClient.connect(url)]);
    watcher.identify(typingBot.botToken, { intents: WITH_TYPING });
    deaf.identify(deafBot.botToken, { intents: WITHOUT_TYPING });
    await Promise.all([watcher.dispatch('READY'), deaf.dispatch('READY')]);
  });

  afterAll(async () => {
    watcher?.ws.terminate();
    deaf?.ws.terminate();
    await app?.close();
  });

  const post = async (who: TestUser, content: string): Promise<string> => {
    const res = await http(app)
      .post(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', who.token)
      .send({ content })
      .expect(201);
    return res.body.id as string;
  };

  it('answers 401 without credentials on every route', async () => {
    const c = `/v1/channels/${g.channelId}`;
    const calls = [
      http(app).get(`${c}/pins`),
      http(app).put(`${c}/pins/${UNKNOWN}`),
      http(app).delete(`${c}/pins/${UNKNOWN}`),
      http(app).get(`${c}/messages/pins`),
      http(app).put(`${c}/messages/pins/${UNKNOWN}`),
      http(app).delete(`${c}/messages/pins/${UNKNOWN}`),
      http(app)
        .post(`${c}/messages/bulk-delete`)
        .send({ messages: [UNKNOWN, UNKNOWN] }),
      http(app).post(`${c}/typing`),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
  });

  it('answers 404 for an unknown channel on every route: the envelope on /v1, 10003 on Discord’s paths', async () => {
    for (const base of ['/v1', '/api/v10']) {
      const c = `${base}/channels/${UNKNOWN}`;
      const calls = [
        http(app).get(`${c}/pins`).set('Authorization', owner.token),
        http(app).put(`${c}/pins/${UNKNOWN}`).set('Authorization', owner.token),
        http(app).delete(`${c}/pins/${UNKNOWN}`).set('Authorization', owner.token),
        http(app).get(`${c}/messages/pins`).set('Authorization', owner.token),
        http(app).put(`${c}/messages/pins/${UNKNOWN}`).set('Authorization', owner.token),
        http(app).delete(`${c}/messages/pins/${UNKNOWN}`).set('Authorization', owner.token),
        http(app)
          .post(`${c}/messages/bulk-delete`)
          .set('Authorization', owner.token)
          .send({ messages: [UNKNOWN, UNKNOWN] }),
        http(app).post(`${c}/typing`).set('Authorization', owner.token),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual(
          base === '/v1'
            ? { code: 'UNKNOWN_CHANNEL', message: expect.any(String) }
            : { code: 10003, message: 'Unknown Channel' },
        );
      }
    }
  });

  it('pins on both route sets: MESSAGE_UPDATE and CHANNEL_PINS_UPDATE; lists newest pin first', async () => {
    const first = await post(member, 'first');
    const second = await post(member, 'second');
    await http(app)
      .put(`/v1/channels/${g.channelId}/pins/${first}`)
      .set('Authorization', moderator.token)
      .expect(204);
    const update = await watcher.next((f) => f.t === 'MESSAGE_UPDATE' && f.d.id === first);
    expect(update.d).toMatchObject({ id: first, pinned: true, guild_id: g.guildId });
    const pinsUpdate = await watcher.dispatch('CHANNEL_PINS_UPDATE');
    expect(pinsUpdate.d).toEqual({
      guild_id: g.guildId,
      channel_id: g.channelId,
      last_pin_timestamp: expect.any(String),
    });
    // The newer route set (discord.js 14.28), through Discord's paths.
    await http(app)
      .put(`/api/v10/channels/${g.channelId}/messages/pins/${second}`)
      .set('Authorization', moderator.token)
      .expect(204);
    // Pinning again changes nothing.
    await http(app)
      .put(`/v1/channels/${g.channelId}/messages/pins/${second}`)
      .set('Authorization', moderator.token)
      .expect(204);

    const legacy = await http(app)
      .get(`/api/v10/channels/${g.channelId}/pins`)
      .set('Authorization', member.token)
      .expect(200);
    expect(legacy.body.map((m: { id: string }) => m.id)).toEqual([second, first]);
    expect(legacy.body[0]).toMatchObject({ content: 'second', pinned: true });

    const page = await http(app)
      .get(`/v1/channels/${g.channelId}/messages/pins?limit=1`)
      .set('Authorization', member.token)
      .expect(200);
    expect(page.body).toEqual({
      items: [{ pinned_at: expect.any(String), message: expect.objectContaining({ id: second }) }],
      has_more: true,
    });
    const older = await http(app)
      .get(`/v1/channels/${g.channelId}/messages/pins`)
      .query({ before: page.body.items[0].pinned_at })
      .set('Authorization', member.token)
      .expect(200);
    expect(older.body.items.map((i: { message: { id: string } }) => i.message.id)).toEqual([first]);
    expect(older.body.has_more).toBe(false);

    await http(app)
      .delete(`/v1/channels/${g.channelId}/messages/pins/${second}`)
      .set('Authorization', moderator.token)
      .expect(204);
    await http(app)
      .delete(`/v1/channels/${g.channelId}/pins/${first}`)
      .set('Authorization', moderator.token)
      .expect(204);
    const unpinned = await watcher.next(
      (f) => f.t === 'MESSAGE_UPDATE' && f.d.id === first && f.d.pinned === false,
    );
    expect(unpinned.d.pinned).toBe(false);
    const none = await http(app)
      .get(`/v1/channels/${g.channelId}/pins`)
      .set('Authorization', member.token)
      .expect(200);
    expect(none.body).toEqual([]);
  });

  it('pins: 403 without MANAGE_MESSAGES, 404 in both dialects, 50 at most', async () => {
    const id = await post(member, 'pin me');
    const denied = await http(app)
      .put(`/v1/channels/${g.channelId}/pins/${id}`)
      .set('Authorization', member.token);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('MISSING_PERMISSIONS');
    const deniedDiscord = await http(app)
      .put(`/api/v10/channels/${g.channelId}/messages/pins/${id}`)
      .set('Authorization', member.token);
    expect(deniedDiscord.status).toBe(403);
    expect(deniedDiscord.body).toMatchObject({ code: 50013 });

    const unknown = await http(app)
      .put(`/v1/channels/${g.channelId}/pins/${UNKNOWN}`)
      .set('Authorization', moderator.token);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('UNKNOWN_MESSAGE');
    const unknownDiscord = await http(app)
      .put(`/api/v10/channels/${g.channelId}/pins/${UNKNOWN}`)
      .set('Authorization', moderator.token);
    expect(unknownDiscord.status).toBe(404);
    expect(unknownDiscord.body).toEqual({ code: 10008, message: 'Unknown Message' });
    const unknownChannel = await http(app)
      .get(`/api/v10/channels/${UNKNOWN}/messages/pins`)
      .set('Authorization', moderator.token);
    expect(unknownChannel.status).toBe(404);
    expect(unknownChannel.body).toEqual({ code: 10003, message: 'Unknown Channel' });

    const ids: string[] = [];
    for (let i = 0; i < 51; i++) ids.push(await post(owner, `pin ${i}`));
    for (const pinId of ids.slice(0, 50)) {
      await http(app)
        .put(`/v1/channels/${g.channelId}/pins/${pinId}`)
        .set('Authorization', owner.token)
        .expect(204);
    }
    const full = await http(app)
      .put(`/v1/channels/${g.channelId}/pins/${ids[50]}`)
      .set('Authorization', owner.token);
    expect(full.status).toBe(400);
    expect(full.body.code).toBe('MAX_PINS_REACHED');
    const fullDiscord = await http(app)
      .put(`/api/v10/channels/${g.channelId}/pins/${ids[50]}`)
      .set('Authorization', owner.token);
    expect(fullDiscord.status).toBe(400);
    expect(fullDiscord.body).toMatchObject({ code: 30003 });
    // Unpinned, they leave room again.
    for (const pinId of ids.slice(0, 50)) {
      await http(app)
        .delete(`/v1/channels/${g.channelId}/pins/${pinId}`)
        .set('Authorization', owner.token)
        .expect(204);
    }
  });

  it('bulk delete: one MESSAGE_DELETE_BULK; ids as JSON numbers beyond 2^53 keep their digits', async () => {
    const ids = [await post(member, 'a'), await post(member, 'b'), await post(member, 'c')];
    // A recent id the channel does not hold is skipped.
    const recentUnknown = (BigInt(Date.now()) - SNOWFLAKE_EPOCH) << 22n;
    const body = `{"messages": [${ids.join(', ')}, ${recentUnknown}]}`;
    const res = await http(app)
      .post(`/api/v10/channels/${g.channelId}/messages/bulk-delete`)
      .set('Authorization', moderator.token)
      .set('Content-Type', 'application/json')
      .send(body);
    expect(res.status).toBe(204);
    const event = await watcher.dispatch('MESSAGE_DELETE_BULK');
    expect(event.d).toEqual({
      ids: expect.any(Array),
      channel_id: g.channelId,
      guild_id: g.guildId,
    });
    expect([...event.d.ids].sort()).toEqual([...ids].sort());
    for (const id of ids) {
      await http(app)
        .get(`/v1/channels/${g.channelId}/messages/${id}`)
        .set('Authorization', owner.token)
        .expect(404);
    }
  });

  it('bulk delete: 403 without MANAGE_MESSAGES, 400 for one id or one older than 14 days, 404 channel', async () => {
    const ids = [await post(member, 'x'), await post(member, 'y')];
    const bulk = (who: TestUser, messages: unknown[], base = '/v1', channel = g.channelId) =>
      http(app)
        .post(`${base}/channels/${channel}/messages/bulk-delete`)
        .set('Authorization', who.token)
        .send({ messages });
    const denied = await bulk(member, ids);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('MISSING_PERMISSIONS');
    const one = await bulk(moderator, [ids[0]]);
    expect(one.status).toBe(400);
    expect(one.body.code).toBe('INVALID_FORM_BODY');
    const oneDiscord = await bulk(moderator, [ids[0]], '/api/v10');
    expect(oneDiscord.status).toBe(400);
    expect(oneDiscord.body).toMatchObject({
      code: 50035,
      errors: { messages: expect.any(Object) },
    });
    const fifteenDaysAgo = BigInt(Date.now() - 15 * 24 * 3600 * 1000) - SNOWFLAKE_EPOCH;
    const old = (fifteenDaysAgo << 22n).toString();
    const tooOld = await bulk(moderator, [ids[0], old]);
    expect(tooOld.status).toBe(400);
    expect(tooOld.body.code).toBe('BULK_DELETE_TOO_OLD');
    const tooOldDiscord = await bulk(moderator, [ids[0], old], '/api/v10');
    expect(tooOldDiscord.body).toMatchObject({ code: 50034 });
    // Nothing was deleted by the refused requests.
    await http(app)
      .get(`/v1/channels/${g.channelId}/messages/${ids[0]}`)
      .set('Authorization', owner.token)
      .expect(200);
    const unknown = await bulk(moderator, ids, '/api/v10', UNKNOWN);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 10003, message: 'Unknown Channel' });
  });

  it('typing: 204 and TYPING_START without a sequence number, only with GUILD_MESSAGE_TYPING', async () => {
    const seqBefore = Math.max(0, ...watcher.frames.map((f) => f.s ?? 0));
    await http(app)
      .post(`/api/v10/channels/${g.channelId}/typing`)
      .set('Authorization', member.token)
      .expect(204);
    const typing = await watcher.dispatch('TYPING_START');
    expect(typing.s).toBeNull();
    expect(typing.d).toEqual({
      channel_id: g.channelId,
      guild_id: g.guildId,
      user_id: member.userId,
      timestamp: expect.any(Number),
      member: expect.objectContaining({
        user: expect.objectContaining({ id: member.userId }),
        roles: [],
      }),
    });
    expect(Math.abs(typing.d.timestamp - Date.now() / 1000)).toBeLessThan(60);
    // A message posted afterwards is numbered right after what came before the typing event.
    const id = await post(owner, 'after typing');
    const created = await watcher.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === id);
    expect(created.s).toBe(seqBefore + 1);
    // A bot without GUILD_MESSAGE_TYPING gets no TYPING_START.
    await deaf.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === id);
    expect(deaf.dispatches('TYPING_START')).toEqual([]);
  });

  it('typing: 403 without SEND_MESSAGES, 404 for an unknown channel in both dialects, rate-limited', async () => {
    // A guild whose @everyone may only view: its members may not type.
    const quiet = await createGuild(app, owner.token);
    await addMember(app, quiet.guildId, member.userId);
    await fixtureQuery(
      app.get(DataSource),
      'UPDATE guild_roles SET permissions = $2 WHERE id = $1',
      [quiet.guildId, String(1 << 10)],
    );
    const mute = await http(app)
      .post(`/v1/channels/${quiet.channelId}/typing`)
      .set('Authorization', member.token);
    expect(mute.status).toBe(403);
    expect(mute.body.code).toBe('MISSING_PERMISSIONS');
    const outsider = await registerUser(app);
    const hidden = await http(app)
      .post(`/v1/channels/${g.channelId}/typing`)
      .set('Authorization', outsider.token);
    expect(hidden.status).toBe(404);
    expect(hidden.body.code).toBe('UNKNOWN_CHANNEL');
    const unknown = await http(app)
      .post(`/api/v10/channels/${UNKNOWN}/typing`)
      .set('Authorization', member.token);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 10003, message: 'Unknown Channel' });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await http(app)
        .post(`/v1/channels/${g.channelId}/typing`)
        .set('Authorization', moderator.token);
      statuses.push(res.status);
    }
    expect(statuses).toContain(204);
    expect(statuses).toContain(429);
  });
});
