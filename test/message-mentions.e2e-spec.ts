import type { ParleyApp } from '../src/app.setup';
import { createTestApp, http } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import { GatewayClient } from './helpers/gateway-client';
import { addMember, createGuild, giveRole, type TestGuild } from './helpers/guild-factories';
import {
  createApplication,
  installBot,
  MESSAGE_CONTENT_INTENT_FLAG,
  setApplicationFlags,
} from './helpers/oauth2-factories';
import { serverPort } from './helpers/ports';

/** Members on messages, role mentions, allowed_mentions and enforce_nonce (Discord's rules). */
describe('messages: members, mentions and nonces', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let member: TestUser;
  let g: TestGuild;
  let roleId: string;
  let watcher: GatewayClient;

  beforeAll(async () => {
    const port = await serverPort();
    app = await createTestApp();
    await app.listen(port, '127.0.0.1');
    [owner, member] = await Promise.all([registerUser(app), registerUser(app)]);
    g = await createGuild(app, owner.token);
    await addMember(app, g.guildId, member.userId);
    roleId = await giveRole(app, g.guildId, member.userId, 0n);
    watcher = await GatewayClient.ready(`ws://127.0.0.1:${port}/gateway`, owner.token);
  });

  afterAll(async () => {
    watcher?.ws.terminate();
    await app?.close();
  });

  const post = (who: TestUser, body: object, base = '/v1') =>
    http(app)
      .post(`${base}/channels/${g.channelId}/messages`)
      .set('Authorization', who.token)
      .send(body);

  it('MESSAGE_CREATE and reads carry the author’s member and each mention’s, with roles', async () => {
    const res = await post(member, { content: `hey <@${owner.userId}>` }).expect(201);
    expect(res.body.member).toMatchObject({ roles: [roleId], nick: null });
    const event = await watcher.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === res.body.id);
    expect(event.d.member).toMatchObject({ roles: [roleId], joined_at: expect.any(String) });
    expect(event.d.member).not.toHaveProperty('user');
    expect(event.d.mentions).toEqual([
      expect.objectContaining({ id: owner.userId, member: expect.objectContaining({ roles: [] }) }),
    ]);
    const list = await http(app)
      .get(`/api/v10/channels/${g.channelId}/messages?limit=1`)
      .set('Authorization', owner.token)
      .expect(200);
    expect(list.body[0]).toMatchObject({
      id: res.body.id,
      member: { roles: [roleId] },
      mentions: [{ id: owner.userId, member: { roles: [] } }],
    });
  });

  it('role mentions: the guild’s roles mentioned, mentionable ones unless MENTION_EVERYONE (never @everyone or others’)', async () => {
    const res = await post(owner, {
      content: `<@&${roleId}> <@&${g.guildId}> <@&1234567890123456789>`,
    }).expect(201);
    expect(res.body.mention_roles).toEqual([roleId]);
    // Without MENTION_EVERYONE only mentionable roles take effect.
    const plain = await post(member, { content: `<@&${roleId}>` }).expect(201);
    expect(plain.body.mention_roles).toEqual([]);
    await http(app)
      .patch(`/v1/guilds/${g.guildId}/roles/${roleId}`)
      .set('Authorization', owner.token)
      .send({ mentionable: true })
      .expect(200);
    const mentionable = await post(member, { content: `<@&${roleId}>` }).expect(201);
    expect(mentionable.body.mention_roles).toEqual([roleId]);
  });

  it('allowed_mentions: only what it lists takes effect; parse and ids are exclusive', async () => {
    const content = `<@${member.userId}> <@&${roleId}> @everyone`;
    const none = await post(owner, { content, allowed_mentions: { parse: [] } }).expect(201);
    expect(none.body).toMatchObject({ mentions: [], mention_roles: [], mention_everyone: false });
    const some = await post(owner, {
      content,
      allowed_mentions: { parse: ['everyone'], users: [member.userId], roles: [] },
    }).expect(201);
    expect(some.body.mentions.map((u: { id: string }) => u.id)).toEqual([member.userId]);
    expect(some.body).toMatchObject({ mention_roles: [], mention_everyone: true });

    const both = await post(owner, {
      content,
      allowed_mentions: { parse: ['users'], users: [member.userId] },
    });
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({
      code: 'INVALID_FORM_BODY',
      errors: [{ path: 'allowed_mentions', code: 'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE' }],
    });
    const badKind = await post(
      owner,
      { content, allowed_mentions: { parse: ['channels'] } },
      '/api/v10',
    );
    expect(badKind.status).toBe(400);
    expect(badKind.body).toMatchObject({
      code: 50035,
      errors: { allowed_mentions: expect.any(Object) },
    });
  });

  it('a reply mentions whom it answers unless allowed_mentions leaves replied_user out', async () => {
    const question = await post(member, { content: 'question' }).expect(201);
    const ref = { message_id: question.body.id };
    const loud = await post(owner, { content: 'a', message_reference: ref }).expect(201);
    expect(loud.body.mentions.map((u: { id: string }) => u.id)).toEqual([member.userId]);
    const quiet = await post(owner, {
      content: 'b',
      message_reference: ref,
      allowed_mentions: { parse: ['users'] },
    }).expect(201);
    expect(quiet.body.mentions).toEqual([]);
    const asked = await post(owner, {
      content: 'c',
      message_reference: ref,
      allowed_mentions: { replied_user: true },
    }).expect(201);
    expect(asked.body.mentions.map((u: { id: string }) => u.id)).toEqual([member.userId]);
  });

  it('REST reads blank other users’ content for a bot without MESSAGE_CONTENT, as the gateway does', async () => {
    const bot = await createApplication(app, owner);
    await installBot(app, owner, bot, g.guildId);
    const secret = await post(member, { content: 'secret plans', embeds: [{ title: 't' }] }).expect(
      201,
    );
    const addressed = await post(member, { content: `<@${bot.botUserId}> hi` }).expect(201);
    const read = (id: string, base = '/v1') =>
      http(app)
        .get(`${base}/channels/${g.channelId}/messages/${id}`)
        .set('Authorization', `Bot ${bot.botToken}`)
        .expect(200);
    expect((await read(secret.body.id)).body).toMatchObject({ content: '', embeds: [] });
    expect((await read(addressed.body.id, '/api/v10')).body.content).toBe(`<@${bot.botUserId}> hi`);
    const list = await http(app)
      .get(`/v1/channels/${g.channelId}/messages?limit=2`)
      .set('Authorization', `Bot ${bot.botToken}`)
      .expect(200);
    expect(list.body.map((m: { content: string }) => m.content)).toEqual([
      `<@${bot.botUserId}> hi`,
      '',
    ]);
    // Its owner enables message content: the next read shows it (the cached credential is dropped).
    await setApplicationFlags(app, owner, bot, MESSAGE_CONTENT_INTENT_FLAG);
    expect((await read(secret.body.id)).body.content).toBe('secret plans');
    // Users always read content.
    const asUser = await http(app)
      .get(`/v1/channels/${g.channelId}/messages/${secret.body.id}`)
      .set('Authorization', owner.token)
      .expect(200);
    expect(asUser.body.content).toBe('secret plans');
  });

  it('enforce_nonce: a repeated post returns the first message, even when both race', async () => {
    const body = { content: 'once', nonce: 'nonce-1', enforce_nonce: true };
    const [a, b] = await Promise.all([post(member, body), post(member, body)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).toBe(b.body.id);
    expect(a.body.nonce).toBe('nonce-1');
    const again = await post(member, body).expect(201);
    expect(again.body.id).toBe(a.body.id);
    // Another author, or no enforce_nonce, posts anew.
    const other = await post(owner, body).expect(201);
    expect(other.body.id).not.toBe(a.body.id);
    const plain = await post(member, { content: 'once', nonce: 'nonce-1' }).expect(201);
    expect(plain.body.id).not.toBe(a.body.id);
    const list = await http(app)
      .get(`/v1/channels/${g.channelId}/messages?limit=5`)
      .set('Authorization', owner.token)
      .expect(200);
    expect(list.body.filter((m: { id: string }) => m.id === a.body.id)).toHaveLength(1);
    // Announced once: the later post's event arrives after any the repeats could have made.
    await watcher.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === plain.body.id);
    expect(watcher.dispatches('MESSAGE_CREATE').filter((f) => f.d.id === a.body.id)).toHaveLength(
      1,
    );
  });
});
