import type { ParleyApp } from '../src/app.setup';
import { createTestApp, http } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import { GatewayClient } from './helpers/gateway-client';
import { addMember, createGuild, type TestGuild } from './helpers/guild-factories';
import { serverPort } from './helpers/ports';

/** Replies: Discord's `message_reference`, type 19 and `referenced_message`. */
describe('messages: replies', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let member: TestUser;
  let g: TestGuild;
  let watcher: GatewayClient;

  beforeAll(async () => {
    const port = await serverPort();
    app = await createTestApp();
    await app.listen(port, '127.0.0.1');
    [owner, member] = await Promise.all([registerUser(app), registerUser(app)]);
    g = await createGuild(app, owner.token);
    await addMember(app, g.guildId, member.userId);
    watcher = await GatewayClient.ready(`ws://127.0.0.1:${port}/gateway`, owner.token);
  });

  afterAll(async () => {
    watcher?.ws.terminate();
    await app?.close();
  });

  const post = (token: string, body: object, base = '/v1') =>
    http(app)
      .post(`${base}/channels/${g.channelId}/messages`)
      .set('Authorization', token)
      .send(body);

  it('posts a reply: type 19, the reference, the answered message, its author mentioned', async () => {
    const original = await post(owner.token, { content: 'question?' }).expect(201);
    const reply = await post(member.token, {
      content: 'answer',
      message_reference: { message_id: original.body.id, fail_if_not_exists: true },
    }).expect(201);
    expect(reply.body).toMatchObject({
      type: 19,
      content: 'answer',
      message_reference: {
        type: 0,
        message_id: original.body.id,
        channel_id: g.channelId,
        guild_id: g.guildId,
      },
      referenced_message: { id: original.body.id, content: 'question?', type: 0 },
    });
    expect(reply.body.mentions.map((u: { id: string }) => u.id)).toEqual([owner.userId]);
    const event = await watcher.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === reply.body.id);
    expect(event.d).toMatchObject({
      type: 19,
      guild_id: g.guildId,
      message_reference: { message_id: original.body.id },
      referenced_message: { id: original.body.id },
    });
    // Reads show the same; once the answered message is deleted, referenced_message is null.
    const read = await http(app)
      .get(`/v1/channels/${g.channelId}/messages/${reply.body.id}`)
      .set('Authorization', owner.token)
      .expect(200);
    expect(read.body.referenced_message).toMatchObject({ id: original.body.id });
    await http(app)
      .delete(`/v1/channels/${g.channelId}/messages/${original.body.id}`)
      .set('Authorization', owner.token)
      .expect(204);
    const list = await http(app)
      .get(`/v1/channels/${g.channelId}/messages?limit=5`)
      .set('Authorization', owner.token)
      .expect(200);
    const listed = list.body.find((m: { id: string }) => m.id === reply.body.id);
    expect(listed).toMatchObject({ type: 19, referenced_message: null });
    expect(listed.message_reference.message_id).toBe(original.body.id);
  });

  it('refuses a reply to a message that does not exist, unless fail_if_not_exists is false', async () => {
    const refused = await post(
      owner.token,
      { content: 'to nothing', message_reference: { message_id: '1234567890123456789' } },
      '/api/v10',
    ).expect(400);
    expect(refused.body).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: {
        message_reference: {
          _errors: [{ code: 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', message: expect.any(String) }],
        },
      },
    });
    const plain = await post(owner.token, {
      content: 'to nothing, anyway',
      message_reference: { message_id: '1234567890123456789', fail_if_not_exists: false },
    }).expect(201);
    expect(plain.body.type).toBe(0);
    expect(plain.body).not.toHaveProperty('message_reference');
    const other = await http(app)
      .post(`/v1/guilds/${g.guildId}/channels`)
      .set('Authorization', owner.token)
      .send({ name: 'other' })
      .expect(201);
    const elsewhere = await http(app)
      .post(`/v1/channels/${other.body.id}/messages`)
      .set('Authorization', owner.token)
      .send({ content: 'there', message_reference: { message_id: plain.body.id } })
      .expect(400);
    expect(elsewhere.body.errors[0]).toMatchObject({
      path: 'message_reference',
      code: 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE',
    });
    const malformed = await post(owner.token, {
      content: 'x',
      message_reference: { message_id: 'abc' },
    }).expect(400);
    expect(malformed.body.errors[0].path).toBe('message_reference.message_id');
  });
});
