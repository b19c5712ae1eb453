import type { ParleyApp } from '../src/app.setup';
import { EventLog } from '../src/infra/events/event-log';
import type { LoggedEvent } from '../src/infra/events/realtime-event';
import { Permissions } from '../src/modules/guilds/permissions';
import { createTestApp, http } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import {
  addMember,
  createGuild,
  createWebhook,
  giveRole,
  type TestGuild,
} from './helpers/guild-factories';

/**
 * Collects the realtime events of one guild that this app's log delivers from now on — after
 * what was committed before (earlier tests' events) has been delivered, so none of it is counted.
 */
async function watchGuild(app: ParleyApp, guildId: string) {
  await app.get(EventLog).syncCommitted(5_000);
  const seen: LoggedEvent[] = [];
  const stop = app.get(EventLog).subscribe((events) => {
    for (const e of events) if (e.guildId === guildId && e.t.startsWith('MESSAGE_')) seen.push(e);
  });
  const waitFor = async (count: number): Promise<LoggedEvent[]> => {
    const start = Date.now();
    while (seen.length < count && Date.now() - start < 5_000) {
      await new Promise((r) => setTimeout(r, 10));
    }
    return seen.slice();
  };
  return { seen, stop, waitFor };
}

describe('messages: get, edit, delete, and the events each write publishes', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let member: TestUser;
  let moderator: TestUser;
  let outsider: TestUser;
  let g: TestGuild;

  beforeAll(async () => {
    app = await createTestApp();
    [owner, member, moderator, outsider] = await Promise.all([
      registerUser(app),
      registerUser(app),
      registerUser(app),
      registerUser(app),
    ]);
    g = await createGuild(app, owner.token);
    await addMember(app, g.guildId, member.userId);
    await addMember(app, g.guildId, moderator.userId);
    await giveRole(app, g.guildId, moderator.userId, Permissions.MANAGE_MESSAGES);
  });
  afterAll(() => app.close());

  const post = (user: TestUser, body: Record<string, unknown>) =>
    http(app)
      .post(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', user.token)
      .send(body);

  it('answers 401 without credentials on the message routes', async () => {
    const id = '1234567890';
    const calls = [
      http(app).get(`/v1/channels/${id}/messages/${id}`),
      http(app).patch(`/v1/channels/${id}/messages/${id}`).send({ content: 'x' }),
      http(app).delete(`/v1/channels/${id}/messages/${id}`),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
  });

  it('returns Discord’s message fields, echoes the nonce and resolves member mentions', async () => {
    const res = await post(member, {
      content: `hi <@${owner.userId}> and <@!${outsider.userId}> @everyone`,
      nonce: 'n-1',
      tts: true,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      channel_id: g.channelId,
      type: 0,
      content: `hi <@${owner.userId}> and <@!${outsider.userId}> @everyone`,
      embeds: [],
      author: expect.objectContaining({ id: member.userId, username: member.username }),
      created_at: expect.any(String),
      timestamp: res.body.created_at,
      edited_timestamp: null,
      tts: false,
      // The member lacks MENTION_EVERYONE; the outsider is not a member of the guild.
      mention_everyone: false,
      // Each mention and the author carry their membership (Discord's member, without user).
      mentions: [
        expect.objectContaining({
          id: owner.userId,
          username: owner.username,
          member: expect.objectContaining({ roles: [], nick: null, joined_at: expect.any(String) }),
        }),
      ],
      member: {
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
      },
      mention_roles: [],
      attachments: [],
      components: [],
      pinned: false,
      flags: 0,
      nonce: 'n-1',
    });
    expect(res.body.member).not.toHaveProperty('user');
    // The owner holds every permission, MENTION_EVERYONE included.
    const everyone = await post(owner, { content: '@here, release at 5', nonce: 42 });
    expect(everyone.status).toBe(201);
    expect(everyone.body).toMatchObject({ mention_everyone: true, nonce: 42 });

    const get = await http(app)
      .get(`/v1/channels/${g.channelId}/messages/${res.body.id}`)
      .set('Authorization', owner.token);
    expect(get.status).toBe(200);
    const { nonce: _nonce, ...stored } = res.body;
    expect(get.body).toEqual(stored);

    for (const nonce of ['x'.repeat(26), 1.5, { a: 1 }]) {
      const bad = await post(member, { content: 'x', nonce });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('INVALID_FORM_BODY');
      expect(bad.body.errors).toEqual([expect.objectContaining({ path: 'nonce' })]);
    }
  });

  it('404s a message of another channel or none, and hides the channel from outsiders', async () => {
    const other = await createGuild(app, owner.token);
    const elsewhere = await http(app)
      .post(`/v1/channels/${other.channelId}/messages`)
      .set('Authorization', owner.token)
      .send({ content: 'elsewhere' });
    const wrongChannel = await http(app)
      .get(`/v1/channels/${g.channelId}/messages/${elsewhere.body.id}`)
      .set('Authorization', owner.token);
    expect(wrongChannel.status).toBe(404);
    expect(wrongChannel.body.code).toBe('UNKNOWN_MESSAGE');
    const none = await http(app)
      .delete(`/v1/channels/${g.channelId}/messages/12345`)
      .set('Authorization', owner.token);
    expect(none.status).toBe(404);
    expect(none.body.code).toBe('UNKNOWN_MESSAGE');
    const malformed = await http(app)
      .get(`/v1/channels/${g.channelId}/messages/not-an-id`)
      .set('Authorization', owner.token);
    expect(malformed.status).toBe(404);
    expect(malformed.body.code).toBe('UNKNOWN_MESSAGE');
    const outside = await http(app)
      .get(`/v1/channels/${g.channelId}/messages/${elsewhere.body.id}`)
      .set('Authorization', outsider.token);
    expect(outside.status).toBe(404);
    expect(outside.body.code).toBe('UNKNOWN_CHANNEL');
  });

  it('lets only the author edit; the edit keeps what it leaves out and sets edited_timestamp', async () => {
    const created = await post(member, {
      content: 'first draft',
      embeds: [{ title: 'Notes', description: 'one' }],
    });
    const url = `/v1/channels/${g.channelId}/messages/${created.body.id}`;
    for (const user of [owner, moderator]) {
      const res = await http(app)
        .patch(url)
        .set('Authorization', user.token)
        .send({ content: 'x' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        code: 'CANNOT_EDIT_MESSAGE_BY_OTHER_USER',
        message: 'Cannot edit a message authored by another user.',
      });
    }
    const edited = await http(app)
      .patch(url)
      .set('Authorization', member.token)
      .send({ content: `second draft for <@${moderator.userId}>` });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      id: created.body.id,
      content: `second draft for <@${moderator.userId}>`,
      embeds: [expect.objectContaining({ title: 'Notes', description: 'one' })],
      mentions: [expect.objectContaining({ id: moderator.userId })],
      timestamp: created.body.timestamp,
      edited_timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(Date.parse(edited.body.edited_timestamp)).toBeGreaterThanOrEqual(
      Date.parse(created.body.timestamp),
    );
    // Emptying it entirely is refused, and changes nothing.
    const empty = await http(app)
      .patch(url)
      .set('Authorization', member.token)
      .send({ content: '', embeds: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('EMPTY_MESSAGE');
    const after = await http(app).get(url).set('Authorization', member.token);
    expect(after.body).toEqual(edited.body);
  });

  it('lets the author or MANAGE_MESSAGES delete; others get 403', async () => {
    const mine = await post(member, { content: 'delete me' });
    const theirs = await post(owner, { content: 'moderate me' });
    const forbidden = await http(app)
      .delete(`/v1/channels/${g.channelId}/messages/${theirs.body.id}`)
      .set('Authorization', member.token);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('MISSING_PERMISSIONS');
    const own = await http(app)
      .delete(`/v1/channels/${g.channelId}/messages/${mine.body.id}`)
      .set('Authorization', member.token);
    expect(own.status).toBe(204);
    expect(own.text).toBe('');
    const moderated = await http(app)
      .delete(`/v1/channels/${g.channelId}/messages/${theirs.body.id}`)
      .set('Authorization', moderator.token);
    expect(moderated.status).toBe(204);
    for (const id of [mine.body.id, theirs.body.id]) {
      const gone = await http(app)
        .get(`/v1/channels/${g.channelId}/messages/${id}`)
        .set('Authorization', owner.token);
      expect(gone.status).toBe(404);
      expect(gone.body.code).toBe('UNKNOWN_MESSAGE');
    }
  });

  it('publishes MESSAGE_CREATE/UPDATE/DELETE for user and webhook messages, and nothing for refused writes', async () => {
    const watch = await watchGuild(app, g.guildId);
    try {
      const created = await post(member, { content: 'watched', nonce: 'w1' });
      const hook = await createWebhook(app, owner.token, g.channelId);
      const viaHook = await http(app)
        .post(`/v1/webhooks/${hook.id}/${hook.token}?wait=true`)
        .send({ content: 'from a hook', embeds: [{ title: 'Build passed' }] });
      expect(viaHook.status).toBe(200);
      // Refused writes publish nothing.
      expect((await post(member, { content: '' })).status).toBe(400);
      const refusedEdit = await http(app)
        .patch(`/v1/channels/${g.channelId}/messages/${created.body.id}`)
        .set('Authorization', owner.token)
        .send({ content: 'not yours' });
      expect(refusedEdit.status).toBe(403);
      const edited = await http(app)
        .patch(`/v1/channels/${g.channelId}/messages/${created.body.id}`)
        .set('Authorization', member.token)
        .send({ content: 'watched, edited' });
      expect(edited.status).toBe(200);
      const deleted = await http(app)
        .delete(`/v1/channels/${g.channelId}/messages/${created.body.id}`)
        .set('Authorization', member.token);
      expect(deleted.status).toBe(204);

      const events = await watch.waitFor(4);
      await new Promise((r) => setTimeout(r, 100));
      expect(watch.seen).toHaveLength(4);
      expect(events.map((e) => e.t)).toEqual([
        'MESSAGE_CREATE',
        'MESSAGE_CREATE',
        'MESSAGE_UPDATE',
        'MESSAGE_DELETE',
      ]);
      for (const e of events) expect(e.channelId).toBe(g.channelId);
      const d = events.map((e) => JSON.parse(e.data) as Record<string, unknown>);
      expect(d[0]).toEqual({ ...created.body, guild_id: g.guildId });
      expect(d[1]).toEqual({ ...viaHook.body, guild_id: g.guildId });
      expect(d[1]).toMatchObject({
        webhook_id: hook.id,
        author: { id: hook.id, bot: true },
        mentions: [],
        embeds: [expect.objectContaining({ title: 'Build passed' })],
      });
      expect(d[2]).toEqual({ ...edited.body, guild_id: g.guildId });
      expect(d[3]).toEqual({
        id: created.body.id,
        channel_id: g.channelId,
        guild_id: g.guildId,
      });
    } finally {
      watch.stop();
    }
  });
});
