import type { ParleyApp } from '../src/app.setup';
import { DataSource } from 'typeorm';
import { sha256 } from '../src/common/crypto/tokens';
import { transformRepoHost } from '../src/modules/webhooks/transformers/repohost.transformer';
import { createTestApp, http, RELAXED_LIMITS } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import { PLAIN_MESSAGE_FIELDS, pushExample } from './helpers/messages';
import {
  addMember,
  createGuild,
  createWebhook,
  PNG_DATA_URI,
  type TestGuild,
  type TestWebhook,
} from './helpers/guild-factories';

type Payload = Record<string, any>;

const sentryIssue = {
  action: 'created',
  installation: { uuid: 'a8e5d37a-696c-4c54-adb5-b3f28d64c7de' },
  data: {
    issue: {
      id: '1170820242',
      shortId: 'FRONT-END-1',
      title: "TypeError: Cannot read properties of undefined (reading 'id')",
      culprit: 'app/components/modal in handleClick',
      level: 'error',
      status: 'unresolved',
      platform: 'javascript',
      project: { id: '1', name: 'front-end', slug: 'front-end', platform: 'javascript' },
      count: '12',
      userCount: 3,
      web_url: 'https://acme.sentry.io/issues/1170820242/',
    },
  },
  actor: { type: 'application', id: 'sentry', name: 'Sentry' },
};

const slackBody = {
  text: 'Deploy finished',
  username: 'deploy-bot',
  attachments: [
    {
      color: 'good',
      title: 'Build #42',
      title_link: 'https://ci.example.com/42',
      text: 'All *green*',
      fields: [{ title: 'Env', value: 'prod', short: true }],
    },
  ],
};

describe('webhooks', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let member: TestUser;
  let outsider: TestUser;
  let guild: TestGuild;

  const execPath = (w: TestWebhook, suffix = '') => `/v1/webhooks/${w.id}/${w.token}${suffix}`;
  const messages = async (channelId: string) => {
    const res = await http(app)
      .get(`/v1/channels/${channelId}/messages`)
      .set('Authorization', owner.token);
    expect(res.status).toBe(200);
    return res.body as Payload[];
  };

  beforeAll(async () => {
    app = await createTestApp();
    owner = await registerUser(app);
    member = await registerUser(app);
    outsider = await registerUser(app);
    guild = await createGuild(app, owner.token);
    await addMember(app, guild.guildId, member.userId);
  });
  afterAll(() => app.close());

  it('answers 401 without credentials on every protected route', async () => {
    const id = '1234567890';
    const calls = [
      http(app).post(`/v1/channels/${id}/webhooks`).send({ name: 'x' }),
      http(app).get(`/v1/channels/${id}/webhooks`),
      http(app).get(`/v1/guilds/${id}/webhooks`),
      http(app).get(`/v1/webhooks/${id}`),
      http(app).patch(`/v1/webhooks/${id}`).send({}),
      http(app)
        .patch(`/v1/webhooks/${id}`)
        .send({ signing_secret: 'a-signing-secret-of-32-characters' }),
      http(app).delete(`/v1/webhooks/${id}`),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
  });

  it('creates a webhook and shows it to managers with its token', async () => {
    const res = await http(app)
      .post(`/v1/channels/${guild.channelId}/webhooks`)
      .set('Authorization', owner.token)
      .send({ name: 'CI', avatar: PNG_DATA_URI });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      type: 1,
      guild_id: guild.guildId,
      channel_id: guild.channelId,
      name: 'CI',
      avatar: expect.stringMatching(/^[0-9a-f]{32}$/),
      token: expect.stringMatching(/^[A-Za-z0-9]{64}$/),
      user: expect.objectContaining({ id: owner.userId, username: owner.username }),
      signing_secret_set: false,
    });
    const get = await http(app)
      .get(`/v1/webhooks/${res.body.id}`)
      .set('Authorization', owner.token);
    expect(get.status).toBe(200);
    expect(get.body).toEqual(res.body);
    const byToken = await http(app).get(`/v1/webhooks/${res.body.id}/${res.body.token}`);
    expect(byToken.status).toBe(200);
    // The token view: no creator, and nothing about the signing secret.
    const { user: _user, signing_secret_set: _signed, ...withoutUser } = res.body;
    expect(byToken.body).toEqual(withoutUser);
    const inChannel = await http(app)
      .get(`/v1/channels/${guild.channelId}/webhooks`)
      .set('Authorization', owner.token);
    expect(inChannel.body).toContainEqual(res.body);
    const inGuild = await http(app)
      .get(`/v1/guilds/${guild.guildId}/webhooks`)
      .set('Authorization', owner.token);
    expect(inGuild.body).toContainEqual(res.body);
  });

  it('validates names and avatars', async () => {
    const noName = await http(app)
      .post(`/v1/channels/${guild.channelId}/webhooks`)
      .set('Authorization', owner.token)
      .send({});
    expect(noName.status).toBe(400);
    expect(noName.body.errors[0].path).toBe('name');
    const badAvatar = await http(app)
      .post(`/v1/channels/${guild.channelId}/webhooks`)
      .set('Authorization', owner.token)
      .send({ name: 'x', avatar: 'https://example.com/a.png' });
    expect(badAvatar.status).toBe(400);
    expect(badAvatar.body).toMatchObject({
      code: 'INVALID_FORM_BODY',
      errors: [{ path: 'avatar' }],
    });
  });

  it('refuses members without MANAGE_WEBHOOKS (403) and non-members (404)', async () => {
    const w = await createWebhook(app, owner.token, guild.channelId);
    const asMember = [
      http(app)
        .post(`/v1/channels/${guild.channelId}/webhooks`)
        .set('Authorization', member.token)
        .send({ name: 'x' }),
      http(app).get(`/v1/channels/${guild.channelId}/webhooks`).set('Authorization', member.token),
      http(app).get(`/v1/guilds/${guild.guildId}/webhooks`).set('Authorization', member.token),
      http(app).get(`/v1/webhooks/${w.id}`).set('Authorization', member.token),
      http(app)
        .patch(`/v1/webhooks/${w.id}`)
        .set('Authorization', member.token)
        .send({ name: 'y' }),
      http(app).delete(`/v1/webhooks/${w.id}`).set('Authorization', member.token),
    ];
    for (const res of await Promise.all(asMember)) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('MISSING_PERMISSIONS');
    }
    const asOutsider = await Promise.all([
      http(app)
        .post(`/v1/channels/${guild.channelId}/webhooks`)
        .set('Authorization', outsider.token)
        .send({ name: 'x' }),
      http(app).get(`/v1/guilds/${guild.guildId}/webhooks`).set('Authorization', outsider.token),
      http(app).get(`/v1/webhooks/${w.id}`).set('Authorization', outsider.token),
      http(app).delete(`/v1/webhooks/${w.id}`).set('Authorization', outsider.token),
    ]);
    expect(asOutsider.map((r) => [r.status, r.body.code])).toEqual([
      [404, 'UNKNOWN_CHANNEL'],
      [404, 'UNKNOWN_GUILD'],
      [404, 'UNKNOWN_WEBHOOK'],
      [404, 'UNKNOWN_WEBHOOK'],
    ]);
    const stillThere = await http(app)
      .get(`/v1/webhooks/${w.id}`)
      .set('Authorization', owner.token);
    expect(stillThere.status).toBe(200);
  });

  it('allows 15 webhooks per channel, even under concurrent creates', async () => {
    const ch = await http(app)
      .post(`/v1/guilds/${guild.guildId}/channels`)
      .set('Authorization', owner.token)
      .send({ name: 'limit' });
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        http(app)
          .post(`/v1/channels/${ch.body.id}/webhooks`)
          .set('Authorization', owner.token)
          .send({ name: `h${i}` }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(15);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(1);
    expect(refused[0].status).toBe(400);
    expect(refused[0].body.code).toBe('MAX_WEBHOOKS_PER_CHANNEL');
    const sixteenth = await http(app)
      .post(`/v1/channels/${ch.body.id}/webhooks`)
      .set('Authorization', owner.token)
      .send({ name: 'again' });
    expect(sixteenth.status).toBe(400);
    expect(sixteenth.body.code).toBe('MAX_WEBHOOKS_PER_CHANNEL');
  });

  it('answers 404 UNKNOWN_WEBHOOK for a wrong token or id on every token route', async () => {
    const w = await createWebhook(app, owner.token, guild.channelId);
    const wrong = 'A'.repeat(64);
    const calls = [
      http(app).get(`/v1/webhooks/${w.id}/${wrong}`),
      http(app).patch(`/v1/webhooks/${w.id}/${wrong}`).send({ name: 'x' }),
      http(app).delete(`/v1/webhooks/${w.id}/${wrong}`),
      http(app).post(`/v1/webhooks/${w.id}/${wrong}`).send({ content: 'x' }),
      http(app)
        .post(`/v1/webhooks/${w.id}/${wrong}/repohost`)
        .set('X-GitHub-Event', 'ping')
        .send({}),
      http(app).post(`/v1/webhooks/${w.id}/${wrong}/errortracker`).send(sentryIssue),
      http(app).post(`/v1/webhooks/${w.id}/${wrong}/chatcompat`).send(slackBody),
      http(app).post(`/v1/webhooks/${w.id}/short`).send({ content: 'x' }),
      http(app).post(`/v1/webhooks/999999999/${w.token}`).send({ content: 'x' }),
      http(app).get(`/v1/webhooks/abc/${w.token}`),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('UNKNOWN_WEBHOOK');
    }
  });

  it('stops executing at once after delete by id and by token', async () => {
    const a = await createWebhook(app, owner.token, guild.channelId);
    expect((await http(app).post(execPath(a)).send({ content: 'warm the cache' })).status).toBe(
      204,
    );
    const del = await http(app).delete(`/v1/webhooks/${a.id}`).set('Authorization', owner.token);
    expect(del.status).toBe(204);
    const afterA = await http(app).post(execPath(a)).send({ content: 'x' });
    expect(afterA.status).toBe(404);
    expect(afterA.body.code).toBe('UNKNOWN_WEBHOOK');
    expect(
      (await http(app).get(`/v1/webhooks/${a.id}`).set('Authorization', owner.token)).status,
    ).toBe(404);

    const b = await createWebhook(app, owner.token, guild.channelId);
    expect((await http(app).post(execPath(b)).send({ content: 'warm' })).status).toBe(204);
    expect((await http(app).delete(execPath(b))).status).toBe(204);
    const afterB = await http(app).post(execPath(b, '/chatcompat')).send(slackBody);
    expect(afterB.status).toBe(404);
    expect(afterB.body.code).toBe('UNKNOWN_WEBHOOK');
  });

  it('stops executing when the row disappears behind the cache (another instance deleted it)', async () => {
    const w = await createWebhook(app, owner.token, guild.channelId);
    expect((await http(app).post(execPath(w)).send({ content: 'warm' })).status).toBe(204);
    await app.get(DataSource).query('DELETE FROM webhooks WHERE id = $1', [w.id]);
    const res = await http(app).post(execPath(w)).send({ content: 'x' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('UNKNOWN_WEBHOOK');
  });

  it('moves to another channel of the same guild, not across guilds', async () => {
    const w = await createWebhook(app, owner.token, guild.channelId);
    const ch = await http(app)
      .post(`/v1/guilds/${guild.guildId}/channels`)
      .set('Authorization', owner.token)
      .send({ name: 'moved' });
    const moved = await http(app)
      .patch(`/v1/webhooks/${w.id}`)
      .set('Authorization', owner.token)
      .send({ channel_id: ch.body.id, name: 'Renamed' });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ channel_id: ch.body.id, name: 'Renamed', token: w.token });
    const posted = await http(app).post(execPath(w, '?wait=true')).send({ content: 'where am I' });
    expect(posted.status).toBe(200);
    expect(posted.body.channel_id).toBe(ch.body.id);
    expect(posted.body.author.username).toBe('Renamed');

    const foreign = await createGuild(app, owner.token);
    const across = await http(app)
      .patch(`/v1/webhooks/${w.id}`)
      .set('Authorization', owner.token)
      .send({ channel_id: foreign.channelId });
    expect(across.status).toBe(400);
    expect(across.body).toMatchObject({
      code: 'INVALID_FORM_BODY',
      errors: [{ path: 'channel_id' }],
    });
    const byToken = await http(app)
      .patch(execPath(w))
      .send({ name: 'Token rename', avatar: PNG_DATA_URI });
    expect(byToken.status).toBe(200);
    expect(byToken.body).toMatchObject({
      name: 'Token rename',
      channel_id: ch.body.id,
      avatar: expect.any(String),
    });
    expect(byToken.body.user).toBeUndefined();
  });

  it('executes the Discord-style body: 204, or 200 with the message when waiting', async () => {
    const w = await createWebhook(app, owner.token, guild.channelId, 'Plain');
    const noWait = await http(app)
      .post(execPath(w))
      .send({ content: 'hello', tts: false, unknown: { x: 1 } });
    expect(noWait.status).toBe(204);
    expect(noWait.text).toBe('');
    const wait = await http(app)
      .post(execPath(w, '?wait=true'))
      .send({
        content: 'with embed',
        username: 'Override',
        avatar_url: 'https://example.com/a.png',
        embeds: [{ title: 'T', description: 'D' }],
      });
    expect(wait.status).toBe(200);
    expect(wait.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      channel_id: guild.channelId,
      content: 'with embed',
      embeds: [{ title: 'T', description: 'D' }],
      author: {
        id: w.id,
        username: 'Override',
        discriminator: '0000',
        global_name: null,
        avatar: 'https://example.com/a.png',
        avatar_color: null,
        flags: 0,
        bot: true,
      },
      webhook_id: w.id,
      created_at: expect.any(String),
      ...PLAIN_MESSAGE_FIELDS,
    });
    expect(wait.body.timestamp).toBe(wait.body.created_at);
    const listed = await messages(guild.channelId);
    expect(listed).toContainEqual(wait.body);
    const hello = listed.find((m) => m.content === 'hello' && m.webhook_id === w.id);
    expect(hello?.author).toMatchObject({ id: w.id, username: 'Plain', bot: true });

    const empty = await http(app).post(execPath(w)).send({});
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('EMPTY_MESSAGE');
    const tooLong = await http(app)
      .post(execPath(w))
      .send({ content: 'x'.repeat(2001) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatchObject({
      code: 'INVALID_FORM_BODY',
      errors: [{ path: 'content' }],
    });
    const tooMany = await http(app)
      .post(execPath(w))
      .send({ embeds: Array.from({ length: 11 }, () => ({ title: 't' })) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0].path).toBe('embeds');
  });

  it('renders a real push delivery (repohost) and de-duplicates X-GitHub-Delivery', async () => {
    const w = await createWebhook(app, owner.token, guild.channelId, 'GitHub');
    const ch = await http(app)
      .post(`/v1/guilds/${guild.guildId}/channels`)
      .set('Authorization', owner.token)
      .send({ name: 'gh' });
    await http(app)
      .patch(`/v1/webhooks/${w.id}`)
      .set('Authorization', owner.token)
      .send({ channel_id: ch.body.id });
    const payload = pushExample();
    const expected = transformRepoHost('push', payload);
    expect(expected).not.toBeNull();

    const first = await http(app)
      .post(execPath(w, '/repohost'))
      .set('X-GitHub-Event', 'push')
      .set('X-GitHub-Delivery', 'delivery-1')
      .send(payload);
    expect(first.status).toBe(204);
    const dup = await http(app)
      .post(execPath(w, '/repohost'))
      .set('X-GitHub-Event', 'push')
      .set('X-GitHub-Delivery', 'delivery-1')
      .send(payload);
    expect(dup.status).toBe(204);
    const listed = await messages(ch.body.id);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      webhook_id: w.id,
      content: '',
      embeds: expected!.embeds,
      author: { id: w.id, username: 'GitHub', bot: true },
    });
    expect(listed[0].embeds[0].title).toContain('new commit');

    const ping = await http(app)
      .post(execPath(w, '/repohost?wait=true'))
      .set('X-GitHub-Event', 'ping')
      .send({ zen: 'Keep it logically awesome.', hook_id: 1, sender: payload.sender });
    expect(ping.status).toBe(204);
    expect(await messages(ch.body.id)).toHaveLength(1);

    const waited = await http(app)
      .post(execPath(w, '/repohost?wait=true'))
      .set('X-Event-Key', 'push')
      .set('X-GitHub-Delivery', 'delivery-2')
      .send(payload);
    expect(waited.status).toBe(200);
    expect(waited.body).toMatchObject({
      channel_id: ch.body.id,
      webhook_id: w.id,
      embeds: expected!.embeds,
    });
    expect(await messages(ch.body.id)).toHaveLength(2);
  });

  it('accepts a 5 MiB repohost body', async () => {
    const w = await createWebhook(app, owner.token, guild.channelId);
    const payload = { ...pushExample(), padding: 'x'.repeat(5 * 1024 * 1024) };
    const res = await http(app)
      .post(execPath(w, '/repohost?wait=true'))
      .set('X-GitHub-Event', 'push')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(payload));
    expect(res.status).toBe(200);
    expect(res.body.embeds[0].title).toContain('new commit');
  });

  it('renders a Sentry issue (errortracker)', async () => {
    const w = await createWebhook(app, owner.token, guild.channelId, 'Sentry');
    const res = await http(app)
      .post(execPath(w, '/errortracker'))
      .set('Sentry-Hook-Resource', 'issue')
      .send(sentryIssue);
    expect(res.status).toBe(204);
    const msg = (await messages(guild.channelId)).find((m) => m.webhook_id === w.id);
    expect(msg?.embeds[0]).toMatchObject({
      title: "[front-end] New issue: TypeError: Cannot read properties of undefined (reading 'id')",
      url: 'https://acme.sentry.io/issues/1170820242/',
    });
    const waited = await http(app)
      .post(execPath(w, '/errortracker?wait=true'))
      .set('Sentry-Hook-Resource', 'issue')
      .send(sentryIssue);
    expect(waited.status).toBe(200);
    expect(waited.body.embeds[0].title).toContain('New issue');
    const installation = await http(app)
      .post(execPath(w, '/errortracker?wait=true'))
      .set('Sentry-Hook-Resource', 'installation')
      .send({ action: 'created', data: { installation: {} } });
    expect(installation.status).toBe(204);
  });

  it('renders a Slack attachment (chatcompat) and answers ok', async () => {
    const w = await createWebhook(app, owner.token, guild.channelId, 'Slack');
    const res = await http(app).post(execPath(w, '/chatcompat')).send(slackBody);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toBe('ok');
    const msg = (await messages(guild.channelId)).find((m) => m.webhook_id === w.id);
    expect(msg).toMatchObject({
      content: 'Deploy finished',
      author: { username: 'deploy-bot', bot: true },
      embeds: [
        expect.objectContaining({
          title: 'Build #42',
          url: 'https://ci.example.com/42',
          description: 'All *green*',
          fields: [{ name: 'Env', value: 'prod', inline: true }],
        }),
      ],
    });
    const waited = await http(app).post(execPath(w, '/chatcompat?wait=true')).send(slackBody);
    expect(waited.status).toBe(200);
    expect(waited.body).toMatchObject({ webhook_id: w.id, content: 'Deploy finished' });
    const form = await http(app)
      .post(execPath(w, '/chatcompat'))
      .type('form')
      .send({ payload: JSON.stringify({ text: 'from a form' }) });
    expect(form.status).toBe(200);
    const nothing = await http(app).post(execPath(w, '/chatcompat')).send({ text: '  ' });
    expect(nothing.status).toBe(204);
  });

  it('answers 400 (never 500) to bodies that are not JSON objects', async () => {
    const w = await createWebhook(app, owner.token, guild.channelId);
    for (const suffix of ['', '/repohost', '/errortracker', '/chatcompat']) {
      const text = await http(app)
        .post(execPath(w, suffix))
        .set('Content-Type', 'text/plain')
        .set('X-GitHub-Event', 'push')
        .send('hello');
      expect(text.status).toBe(400);
      expect(text.body.code).toBe('INVALID_FORM_BODY');
      const broken = await http(app)
        .post(execPath(w, suffix))
        .set('Content-Type', 'application/json')
        .set('X-GitHub-Event', 'push')
        .send('{"broken":');
      expect(broken.status).toBe(400);
      expect(broken.body.code).toBe('INVALID_JSON');
      const array = await http(app)
        .post(execPath(w, suffix))
        .set('X-GitHub-Event', 'push')
        .send([1, 2]);
      expect(array.status).toBe(400);
      expect(array.body.code).toBe('INVALID_FORM_BODY');
    }
    const unknownEvent = await http(app)
      .post(execPath(w, '/repohost'))
      .set('X-GitHub-Event', 'nonsense')
      .send({ sender: {} });
    expect(unknownEvent.status).toBe(204);
  });

  it('never stores a webhook token in plaintext', async () => {
    const w = await createWebhook(app, owner.token, guild.channelId);
    const db = app.get(DataSource);
    const rows = await db.query<Array<{ t: string }>>('SELECT w::text AS t FROM webhooks w');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.t).not.toContain(w.token);
    const [mine] = await db.query<Array<{ token_hash: Buffer; token_encrypted: string }>>(
      'SELECT token_hash, token_encrypted FROM webhooks WHERE id = $1',
      [w.id],
    );
    expect(mine.token_hash.equals(sha256(w.token))).toBe(true);
    expect(mine.token_encrypted).toMatch(/^v1\./);
    expect(mine.token_encrypted).not.toContain(w.token);
  });
});

describe('webhook execute rate limits', () => {
  let app: ParleyApp;
  beforeAll(async () => {
    app = await createTestApp({
      env: { RATE_LIMIT_OVERRIDES: `${RELAXED_LIMITS},webhook:execute=2/1m` },
    });
  });
  afterAll(() => app.close());

  it('counts per webhook id, not per caller', async () => {
    const owner = await registerUser(app);
    const g = await createGuild(app, owner.token);
    const a = await createWebhook(app, owner.token, g.channelId, 'a');
    const b = await createWebhook(app, owner.token, g.channelId, 'b');
    const post = (w: TestWebhook) =>
      http(app).post(`/v1/webhooks/${w.id}/${w.token}`).send({ content: 'x' });
    expect((await post(a)).status).toBe(204);
    expect((await post(a)).status).toBe(204);
    const limited = await post(a);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'RATE_LIMITED', global: false });
    expect(limited.headers['x-ratelimit-bucket']).toBe('webhook:execute');
    expect((await post(b)).status).toBe(204);
  });
});
