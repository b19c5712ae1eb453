import { InteractionResponseType, InteractionType } from 'discord-interactions';
import type { ParleyApp } from '../src/app.setup';
import { DataSource } from 'typeorm';
import { createTestApp, http } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import { GatewayClient, type Frame } from './helpers/gateway-client';
import { addMember, createGuild, type TestGuild } from './helpers/guild-factories';
import {
  startEndpoint,
  verifyingMiddleware,
  type TestEndpoint,
} from './helpers/interactions-endpoint';
import { createApplication, installBot, type TestApplication } from './helpers/oauth2-factories';
import { serverPort } from './helpers/ports';

/**
 * Interactions end to end with raw HTTP and a raw gateway session for the bot: who may invoke
 * what and where, how an answer is accepted (once, in time, with its own token), follow-ups and
 * their window, and the HTTP endpoint mode with a bot built on `discord-interactions`.
 */
describe('interactions: invoking, answering, follow-ups, HTTP endpoints', () => {
  let app: ParleyApp;
  let port: number;
  let owner: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  let g: TestGuild;
  let other: TestGuild;
  let bot: TestApplication;
  let botSession: GatewayClient;
  let memberSession: GatewayClient;
  const commands: Record<string, string> = {};

  beforeAll(async () => {
    port = await serverPort();
    app = await createTestApp({ env: { OUTBOUND_ALLOW_PRIVATE: 'true' } });
    await app.listen(port, '127.0.0.1');
    [owner, member, stranger] = await Promise.all([
      registerUser(app),
      registerUser(app),
      registerUser(app),
    ]);
    g = await createGuild(app, owner.token);
    other = await createGuild(app, owner.token);
    await addMember(app, g.guildId, member.userId);
    bot = await createApplication(app, owner);
    await installBot(app, owner, bot, g.guildId);
    await installBot(app, owner, bot, other.guildId);
    for (const body of [
      { name: 'hello', description: 'Says hello' },
      { name: 'purge', description: 'Moderators only', default_member_permissions: '8192' },
      {
        name: 'roll',
        description: 'Roll dice',
        options: [
          {
            name: 'sides',
            description: 'Sides',
            type: 4,
            required: true,
            min_value: 2,
            max_value: 100,
          },
        ],
      },
    ]) {
      const res = await http(app)
        .post(`/api/v10/applications/${bot.id}/guilds/${g.guildId}/commands`)
        .set('Authorization', `Bot ${bot.botToken}`)
        .send(body);
      expect(res.status).toBe(201);
      commands[body.name] = res.body.id as string;
    }
    // A bot session with GUILDS only: interactions need no intent.
    botSession = await GatewayClient.connect(`ws://127.0.0.1:${port}/gateway`);
    botSession.identify(`Bot ${bot.botToken}`, { intents: 1 });
    await botSession.dispatch('READY');
    memberSession = await GatewayClient.ready(`ws://127.0.0.1:${port}/gateway`, member.token);
  });

  afterAll(async () => {
    botSession?.close();
    memberSession?.close();
    await app?.close();
  });

  const invokeBody = (name: string, extra: Record<string, unknown> = {}, guild = g) => ({
    type: 2,
    application_id: bot.id,
    guild_id: guild.guildId,
    channel_id: guild.channelId,
    data: { id: commands[name], name, type: 1 },
    ...extra,
  });
  const invoke = (token: string, body: object) =>
    http(app).post('/v1/interactions').set('Authorization', token).send(body);

  /** The member invokes `name`; resolves with the INTERACTION_CREATE the bot received. */
  async function invoked(name: string, extra: Record<string, unknown> = {}): Promise<Frame> {
    const at = botSession.frames.length;
    const res = await invoke(member.token, invokeBody(name, extra));
    expect(res.status).toBe(204);
    return botSession.next(
      (f) => f.t === 'INTERACTION_CREATE' && f.d.data?.name === name,
      5_000,
      at,
    );
  }
  const callback = (d: { id: string; token: string }, body: object, query = '') =>
    http(app).post(`/api/v10/interactions/${d.id}/${d.token}/callback${query}`).send(body);

  it('POST /interactions needs a user session: none → 401, a bot token → 401/403', async () => {
    expect((await http(app).post('/v1/interactions').send(invokeBody('hello'))).status).toBe(401);
    const asBot = await invoke(`Bot ${bot.botToken}`, invokeBody('hello'));
    expect([401, 403]).toContain(asBot.status);
  });

  it('the bot receives Discord’s interaction object, without an intent, with the member’s permissions', async () => {
    const created = await invoked('roll', {
      data: {
        id: commands.roll,
        name: 'roll',
        type: 1,
        options: [{ name: 'sides', type: 4, value: 6 }],
      },
    });
    expect(created.s).toBeNull();
    expect(created.d).toMatchObject({
      application_id: bot.id,
      type: 2,
      version: 1,
      guild_id: g.guildId,
      channel_id: g.channelId,
      channel: { id: g.channelId },
      member: { user: { id: member.userId } },
      data: {
        id: commands.roll,
        name: 'roll',
        type: 1,
        options: [{ name: 'sides', type: 4, value: 6 }],
      },
      entitlements: [],
      authorizing_integration_owners: { '0': g.guildId },
      locale: 'en-US',
    });
    expect(created.d.token).toMatch(/^aW50ZXJhY3Rpb246/);
    expect(BigInt(created.d.member.permissions) & (1n << 31n)).toBe(1n << 31n);
    expect(typeof created.d.app_permissions).toBe('string');
  });

  it('options are checked against the command: wrong type, out of range, unknown, missing → 400', async () => {
    const bad = [
      [{ name: 'sides', type: 4, value: 'six' }],
      [{ name: 'sides', type: 4, value: 1000 }],
      [{ name: 'nope', type: 3, value: 'x' }],
      [],
    ];
    for (const options of bad) {
      const res = await invoke(
        member.token,
        invokeBody('roll', { data: { id: commands.roll, name: 'roll', type: 1, options } }),
      );
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_FORM_BODY');
    }
  });

  it('who may invoke: default_member_permissions, a non-member, a guild command in another guild', async () => {
    expect((await invoke(member.token, invokeBody('purge'))).status).toBe(403);
    expect((await invoke(owner.token, invokeBody('purge'))).status).toBe(204);
    expect((await invoke(stranger.token, invokeBody('hello'))).status).toBe(404);
    const elsewhere = await invoke(owner.token, invokeBody('hello', {}, other));
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'data.id' })]),
    );
  });

  it('without USE_APPLICATION_COMMANDS in the guild → 403', async () => {
    const roles = await http(app)
      .get(`/v1/guilds/${g.guildId}/roles`)
      .set('Authorization', owner.token);
    const everyone = roles.body.find((r: { id: string }) => r.id === g.guildId);
    const without = (BigInt(everyone.permissions) & ~(1n << 31n)).toString();
    const patch = (permissions: string) =>
      http(app)
        .patch(`/v1/guilds/${g.guildId}/roles/${g.guildId}`)
        .set('Authorization', owner.token)
        .send({ permissions });
    expect((await patch(without)).status).toBe(200);
    try {
      expect((await invoke(member.token, invokeBody('hello'))).status).toBe(403);
    } finally {
      expect((await patch(everyone.permissions)).status).toBe(200);
    }
  });

  it('an answer is taken once (40060), with its own token only (10062), and with_response returns Discord’s callback response', async () => {
    const first = await invoked('hello');
    const second = await invoked('hello');
    const swapped = await callback(
      { id: first.d.id, token: second.d.token },
      { type: 4, data: { content: 'x' } },
    );
    expect(swapped.status).toBe(404);
    expect(swapped.body.code).toBe(10062);
    const ok = await callback(
      first.d,
      { type: 4, data: { content: 'hi there' } },
      '?with_response=true',
    );
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      interaction: {
        id: first.d.id,
        type: 2,
        response_message_ephemeral: false,
        response_message_loading: false,
      },
      resource: { type: 4, message: { content: 'hi there', type: 20 } },
    });
    const again = await callback(first.d, { type: 4, data: { content: 'again' } });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe(40060);
    // The wrong answer type for a command (8: autocomplete) is refused before anything is taken.
    expect((await callback(second.d, { type: 8, data: { choices: [] } })).status).toBe(400);
    expect((await callback(second.d, { type: 4, data: { content: 'fine' } })).status).toBe(204);
  });

  it('follow-ups: only the interaction’s application, only after the answer, only for 15 minutes', async () => {
    const created = await invoked('hello');
    const followUp = (appId: string) =>
      http(app)
        .post(`/api/v10/webhooks/${appId}/${created.d.token}?wait=true`)
        .send({ content: 'more' });
    expect((await followUp(bot.id)).status).toBe(404);
    expect((await callback(created.d, { type: 5 })).status).toBe(204);
    expect((await followUp(g.guildId)).status).toBe(404);
    const posted = await followUp(bot.id);
    expect(posted.status).toBe(200);
    expect(posted.body).toMatchObject({
      content: 'more',
      webhook_id: bot.id,
      application_id: bot.id,
    });
    const original = await http(app).get(
      `/api/v10/webhooks/${bot.id}/${created.d.token}/messages/@original`,
    );
    expect(original.status).toBe(200);
    expect(original.body.flags & 128).toBe(128);
    await app
      .get(DataSource)
      .query(`UPDATE interactions SET created_at = now() - interval '16 minutes' WHERE id = $1`, [
        created.d.id,
      ]);
    expect((await followUp(bot.id)).status).toBe(404);
    const late = await http(app)
      .patch(`/api/v10/webhooks/${bot.id}/${created.d.token}/messages/@original`)
      .send({ content: 'x' });
    expect(late.status).toBe(404);
  });

  it('a user select on the bot’s message: the values arrive with `resolved` users and members', async () => {
    const posted = await http(app)
      .post(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', `Bot ${bot.botToken}`)
      .send({
        content: 'who?',
        components: [{ type: 1, components: [{ type: 5, custom_id: 'who', max_values: 2 }] }],
      });
    expect(posted.status).toBe(201);
    const at = botSession.frames.length;
    const click = (values: string[], messageId = posted.body.id as string) =>
      invoke(member.token, {
        type: 3,
        application_id: bot.id,
        guild_id: g.guildId,
        channel_id: g.channelId,
        message_id: messageId,
        data: { component_type: 5, custom_id: 'who', values },
      });
    expect((await click([owner.userId, member.userId])).status).toBe(204);
    const created = await botSession.next(
      (f) => f.t === 'INTERACTION_CREATE' && f.d.type === 3,
      5_000,
      at,
    );
    expect(created.d.message).toMatchObject({ id: posted.body.id, content: 'who?' });
    expect(created.d.data).toMatchObject({
      custom_id: 'who',
      component_type: 5,
      values: [owner.userId, member.userId],
    });
    expect(Object.keys(created.d.data.resolved.users).sort()).toEqual(
      [owner.userId, member.userId].sort(),
    );
    expect(Object.keys(created.d.data.resolved.members).sort()).toEqual(
      [owner.userId, member.userId].sort(),
    );
    // A custom id the message does not have, and a message that is not the application's.
    const elsewhere = await http(app)
      .post(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', owner.token)
      .send({ content: 'mine' });
    expect((await click([owner.userId], elsewhere.body.id as string)).status).toBe(404);
    const wrong = await invoke(member.token, {
      type: 3,
      application_id: bot.id,
      guild_id: g.guildId,
      channel_id: g.channelId,
      message_id: posted.body.id,
      data: { component_type: 2, custom_id: 'nope' },
    });
    expect(wrong.status).toBe(400);
  });

  it('the member’s sessions get INTERACTION_FAILURE when nobody answers in 3 s', async () => {
    const at = memberSession.frames.length;
    expect((await invoke(member.token, invokeBody('hello', { nonce: 'lonely' }))).status).toBe(204);
    const failed = await memberSession.next(
      (f) => f.t === 'INTERACTION_FAILURE' && f.d.nonce === 'lonely',
      6_000,
      at,
    );
    expect(failed.d.id).toMatch(/^\d+$/);
  });

  describe('an HTTP endpoint built on discord-interactions', () => {
    let endpoint: TestEndpoint;
    const deferred: Array<{ id: string; token: string }> = [];

    beforeAll(async () => {
      const me = await http(app)
        .get('/api/v10/oauth2/applications/@me')
        .set('Authorization', `Bot ${bot.botToken}`);
      endpoint = await startEndpoint((e) =>
        e.post('/interactions', verifyingMiddleware(me.body.verify_key as string), (req, res) => {
          const body = req.body as {
            type: number;
            id: string;
            token: string;
            data: { name: string };
          };
          if (body.type !== Number(InteractionType.APPLICATION_COMMAND))
            return void res.status(400).end();
          if (body.data.name === 'hello') {
            return void res.json({
              type: InteractionResponseType.CHANNEL_MESSAGE_WITH_SOURCE,
              data: { content: 'inline hello' },
            });
          }
          deferred.push({ id: body.id, token: body.token });
          res.status(202).end();
        }),
      );
      const set = await http(app)
        .patch(`/v1/oauth2/applications/${bot.id}`)
        .set('Authorization', owner.token)
        .send({ interactions_endpoint_url: endpoint.url });
      expect(set.status).toBe(200);
    });

    afterAll(async () => {
      await http(app)
        .patch(`/v1/oauth2/applications/${bot.id}`)
        .set('Authorization', owner.token)
        .send({ interactions_endpoint_url: null });
      await endpoint?.close();
    });

    it('answers a command inline (200) and another later through the callback (202)', async () => {
      const botAt = botSession.frames.length;
      let at = memberSession.frames.length;
      expect((await invoke(member.token, invokeBody('hello', { nonce: 'inline' }))).status).toBe(
        204,
      );
      await memberSession.next(
        (f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'inline hello',
        5_000,
        at,
      );
      await memberSession.next(
        (f) => f.t === 'INTERACTION_SUCCESS' && f.d.nonce === 'inline',
        5_000,
        at,
      );

      at = memberSession.frames.length;
      const body = invokeBody('roll', {
        nonce: 'later',
        data: {
          id: commands.roll,
          name: 'roll',
          type: 1,
          options: [{ name: 'sides', type: 4, value: 20 }],
        },
      });
      expect((await invoke(member.token, body)).status).toBe(204);
      await waitUntil(() => deferred.length === 1);
      expect((await callback(deferred[0], { type: 4, data: { content: 'rolled 7' } })).status).toBe(
        204,
      );
      await memberSession.next(
        (f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'rolled 7',
        5_000,
        at,
      );
      await memberSession.next(
        (f) => f.t === 'INTERACTION_SUCCESS' && f.d.nonce === 'later',
        5_000,
        at,
      );
      // Over HTTP, nothing went to the bot's gateway session.
      expect(botSession.frames.slice(botAt).some((f) => f.t === 'INTERACTION_CREATE')).toBe(false);
    });
  });
});

async function waitUntil(done: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
