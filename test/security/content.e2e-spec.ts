import type { ParleyApp } from '../../src/app.setup';
import { createTestApp, http, unique } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { createGuild, createWebhook, type TestWebhook } from '../helpers/guild-factories';

const HOSTILE_URLS = [
  'javascript:alert(1)',
  'file:///etc/passwd',
  'data:text/html,<script>x</script>',
];
/** Renders as nothing, or turns the text after it around: U+202E, zero-width space and joiner. */
const INVISIBLE = '\u202e\u200b\u200d';

/**
 * Security findings 9 and 12: what a message may carry and what a name may be. URL fields take
 * only http(s) (and attachment:// for images and icons); the routes whose senders can be told
 * answer 400, foreign formats drop the URL. Display names must show something. And a payload
 * that names a member of Object.prototype (`"action": "constructor"`) posts no function source.
 */
describe('message content and names', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let channelId: string;
  let hook: TestWebhook;

  beforeAll(async () => {
    app = await createTestApp();
    owner = await registerUser(app);
    const guild = await createGuild(app, owner.token);
    channelId = guild.channelId;
    hook = await createWebhook(app, owner.token, channelId, 'Builds');
  });
  afterAll(() => app.close());

  const messagesContaining = async (needle: string) =>
    (
      (
        await http(app)
          .get(`/v1/channels/${channelId}/messages?limit=100`)
          .set('Authorization', owner.token)
      ).body as unknown[]
    ).filter((m) => JSON.stringify(m).includes(needle));

  it.each(HOSTILE_URLS)(
    'refuses %s in the URL fields of a posted message and a plain execute',
    async (bad) => {
      const post = await http(app)
        .post(`/v1/channels/${channelId}/messages`)
        .set('Authorization', owner.token)
        .send({ embeds: [{ title: 'x', url: bad, image: { url: bad } }] });
      expect(post.status).toBe(400);
      expect(post.body.errors.map((e: { path: string }) => e.path)).toEqual([
        'embeds.0.url',
        'embeds.0.image.url',
      ]);
      const execute = await http(app)
        .post(`/v1/webhooks/${hook.id}/${hook.token}?wait=true`)
        .send({
          content: 'hi',
          avatar_url: bad,
          embeds: [{ title: 'x', author: { name: 'a', icon_url: bad } }],
        });
      expect(execute.status).toBe(400);
      expect(execute.body.errors).toEqual([
        expect.objectContaining({ path: 'embeds.0.author.icon_url' }),
        expect.objectContaining({ path: 'avatar_url' }),
      ]);
      expect(execute.body.errors[0].code).toMatch(/^URL_TYPE_INVALID_(SCHEME|URL)$/);
      expect(await messagesContaining(bad)).toEqual([]);
    },
  );

  it('keeps https and attachment:// where Discord takes them', async () => {
    const ok = await http(app)
      .post(`/v1/channels/${channelId}/messages`)
      .set('Authorization', owner.token)
      .send({
        embeds: [
          {
            title: 'ok',
            url: 'https://example.com/a',
            thumbnail: { url: 'attachment://chart.png' },
          },
        ],
      });
    expect(ok.status).toBe(201);
    expect(ok.body.embeds[0]).toMatchObject({
      url: 'https://example.com/a',
      thumbnail: { url: 'attachment://chart.png' },
    });
    const link = await http(app)
      .post(`/v1/channels/${channelId}/messages`)
      .set('Authorization', owner.token)
      .send({ embeds: [{ title: 'no', url: 'attachment://page.html' }] });
    expect(link.status).toBe(400);
    expect(link.body.errors[0]).toMatchObject({
      path: 'embeds.0.url',
      code: 'URL_TYPE_INVALID_SCHEME',
    });
  });

  it('drops hostile URLs from foreign deliveries instead of refusing them', async () => {
    const marker = unique('push-');
    const push = await http(app)
      .post(`/v1/webhooks/${hook.id}/${hook.token}/repohost?wait=true`)
      .set('X-GitHub-Event', 'push')
      .send({
        ref: 'refs/heads/main',
        compare: 'javascript:alert(1)',
        repository: { full_name: marker, html_url: 'javascript:alert(2)' },
        sender: { login: 'mallory', html_url: 'file:///etc/passwd', avatar_url: 'javascript:x' },
        commits: [{ id: 'abcdef1234567', message: 'fix', url: 'javascript:alert(3)' }],
        head_commit: { id: 'abcdef1234567', message: 'fix' },
      });
    expect(push.status).toBe(200);
    const text = JSON.stringify(push.body);
    expect(text).toContain(marker);
    for (const scheme of ['javascript:', 'file:']) expect(text).not.toContain(scheme);
    const slack = await http(app)
      .post(`/v1/webhooks/${hook.id}/${hook.token}/chatcompat?wait=true`)
      .send({
        text: 'deployed',
        icon_url: 'file:///etc/passwd',
        attachments: [{ title: 'x', title_link: 'javascript:x' }],
      });
    expect(slack.status).toBe(200);
    expect(slack.body.author.avatar).toBeNull();
    expect(JSON.stringify(slack.body)).not.toMatch(/javascript:|file:/);
  });

  it('posts no function source for an action named after Object.prototype', async () => {
    for (const action of ['constructor', 'toString', '__proto__']) {
      const res = await http(app)
        .post(`/v1/webhooks/${hook.id}/${hook.token}/repohost?wait=true`)
        .set('X-GitHub-Event', 'issues')
        .send({
          action,
          issue: { number: 1, title: 'x', html_url: 'https://example.com/i/1' },
          repository: { full_name: 'acme/app' },
        });
      expect(res.status).toBe(204);
    }
    expect(await messagesContaining('native code')).toEqual([]);
  });

  it('refuses names that show nothing, wherever a name is given', async () => {
    const invisible = (
      res: { status: number; body: { errors?: Array<{ path: string; code: string }> } },
      path: string,
    ) => {
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ path, code: 'NAME_INVISIBLE' })]);
    };
    invisible(
      await http(app)
        .post('/v1/auth/register')
        .send({
          consent: true,
          date_of_birth: '1990-01-01',
          email: `${unique('u')}@example.com`,
          password: 'correct-horse-battery',
          global_name: INVISIBLE,
        }),
      'global_name',
    );
    const auth = (req: ReturnType<ReturnType<typeof http>['post']>) =>
      req.set('Authorization', owner.token);
    invisible(
      await http(app)
        .patch('/v1/users/@me')
        .set('Authorization', owner.token)
        .send({ global_name: ' \u2066\u2069 ' }),
      'global_name',
    );
    invisible(
      await auth(http(app).post('/v1/guilds')).send({ name: `\u200b\u200b${INVISIBLE}` }),
      'name',
    );
    invisible(
      await http(app)
        .post(`/v1/channels/${channelId}/webhooks`)
        .set('Authorization', owner.token)
        .send({ name: INVISIBLE }),
      'name',
    );
    invisible(
      await auth(http(app).post('/v1/oauth2/applications')).send({ name: '\u3164\u3164' }),
      'name',
    );
    invisible(
      await http(app).patch(`/v1/webhooks/${hook.id}/${hook.token}`).send({ name: '\u2800' }),
      'name',
    );
    // A visible name with a direction mark in it is fine.
    const fine = await http(app)
      .patch('/v1/users/@me')
      .set('Authorization', owner.token)
      .send({ global_name: '\u200fZoë' });
    expect(fine.status).toBe(200);
    // A webhook message's name override that shows nothing is no override.
    const posted = await http(app)
      .post(`/v1/webhooks/${hook.id}/${hook.token}?wait=true`)
      .send({ content: 'hello', username: INVISIBLE });
    expect(posted.status).toBe(200);
    expect(posted.body.author.username).toBe('Builds');
  });
});
