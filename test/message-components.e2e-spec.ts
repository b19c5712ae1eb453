import type { ParleyApp } from '../src/app.setup';
import { createTestApp, http } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import { GatewayClient } from './helpers/gateway-client';
import { createGuild, createWebhook, type TestGuild } from './helpers/guild-factories';
import {
  createApplication,
  installBot,
  MESSAGE_CONTENT_INTENT_FLAG,
  setApplicationFlags,
  type TestApplication,
} from './helpers/oauth2-factories';
import { serverPort } from './helpers/ports';

const row = (...components: unknown[]) => ({ type: 1, components });
const button = (custom_id: string, style = 1) => ({ type: 2, style, label: custom_id, custom_id });

/** One row of each kind a message may carry, with the optional fields Discord defines. */
const EVERY_KIND = [
  row({ ...button('yes', 3), emoji: { name: '✅' }, disabled: false }, button('no', 4), {
    type: 2,
    style: 5,
    label: 'Docs',
    url: 'https://parley.example/docs',
  }),
  row({
    type: 3,
    custom_id: 'flavour',
    placeholder: 'Pick a flavour',
    min_values: 1,
    max_values: 2,
    options: [
      { label: 'Vanilla', value: 'vanilla', description: 'The classic', default: true },
      { label: 'Mint', value: 'mint', emoji: { name: '🌿' } },
    ],
  }),
  row({ type: 5, custom_id: 'who', default_values: [{ id: '1', type: 'user' }] }),
  row({ type: 6, custom_id: 'which-role', min_values: 0, max_values: 3 }),
  row({ type: 7, custom_id: 'mention', disabled: true }),
];
const CHANNEL_SELECT = row({ type: 8, custom_id: 'where', channel_types: [0] });

/**
 * Discord's message components on bots' messages: stored as sent (unknown fields dropped),
 * returned on REST and in MESSAGE_CREATE/UPDATE, blanked for bots without MESSAGE_CONTENT, kept
 * or cleared on edit; Discord's limits as 400s at the field's path; refused on users' messages.
 */
describe('messages: components', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let g: TestGuild;
  let bot: TestApplication;
  /** Installed without MESSAGE_CONTENT: reads others' messages without their components. */
  let blind: TestApplication;
  let watcher: GatewayClient;
  /** `blind`'s gateway session (GUILDS | GUILD_MESSAGES). */
  let blindSession: GatewayClient;

  beforeAll(async () => {
    const port = await serverPort();
    app = await createTestApp({ env: { GATEWAY_URL: `ws://127.0.0.1:${port}/gateway` } });
    await app.listen(port, '127.0.0.1');
    owner = await registerUser(app);
    g = await createGuild(app, owner.token);
    [bot, blind] = await Promise.all([
      createApplication(app, owner),
      createApplication(app, owner),
    ]);
    await setApplicationFlags(app, owner, bot, MESSAGE_CONTENT_INTENT_FLAG);
    for (const a of [bot, blind]) await installBot(app, owner, a, g.guildId);
    watcher = await GatewayClient.ready(`ws://127.0.0.1:${port}/gateway`, owner.token);
    blindSession = await GatewayClient.connect(`ws://127.0.0.1:${port}/gateway`);
    blindSession.identify(blind.botToken, { intents: (1 << 0) | (1 << 9) });
    await blindSession.dispatch('GUILD_CREATE');
  });

  afterAll(async () => {
    watcher?.ws.terminate();
    blindSession?.ws.terminate();
    await app?.close();
  });

  const post = (body: Record<string, unknown>, token = `Bot ${bot.botToken}`, prefix = '/v1') =>
    http(app)
      .post(`${prefix}/channels/${g.channelId}/messages`)
      .set('Authorization', token)
      .send(body);
  const edit = (id: string, body: Record<string, unknown>) =>
    http(app)
      .patch(`/v1/channels/${g.channelId}/messages/${id}`)
      .set('Authorization', `Bot ${bot.botToken}`)
      .send(body);
  const read = async (id: string, token = owner.token) =>
    (
      await http(app)
        .get(`/v1/channels/${g.channelId}/messages/${id}`)
        .set('Authorization', token)
        .expect(200)
    ).body as Record<string, unknown>;

  it('stores every kind of component as sent and returns it on REST and in MESSAGE_CREATE', async () => {
    const sent = [...EVERY_KIND.slice(0, 4), CHANNEL_SELECT];
    // Fields Discord does not define are dropped; every one it defines is kept as given.
    const withExtras = sent.map((r) => ({ ...r, unknown_field: 1 }));
    const res = await post({ content: 'pick', components: withExtras }).expect(201);
    expect(res.body.components).toEqual(sent);
    expect((await read(res.body.id as string)).components).toEqual(sent);
    const created = await watcher.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === res.body.id);
    expect(created.d.components).toEqual(sent);
    const listed = await http(app)
      .get(`/v1/channels/${g.channelId}/messages?limit=1`)
      .set('Authorization', owner.token)
      .expect(200);
    expect(listed.body[0].components).toEqual(sent);

    const mentionable = await post({ components: [EVERY_KIND[4]] }).expect(201);
    expect(mentionable.body).toMatchObject({ content: '', components: [EVERY_KIND[4]] });
  });

  it('edits: components left out stay, new ones replace them, [] clears (MESSAGE_UPDATE)', async () => {
    const { body } = await post({ content: 'v1', components: [row(button('a'))] }).expect(201);
    const id = body.id as string;
    const kept = await edit(id, { content: 'v2' }).expect(200);
    expect(kept.body.components).toEqual([row(button('a'))]);
    const replaced = await edit(id, { components: [row(button('b'), button('c'))] }).expect(200);
    expect(replaced.body).toMatchObject({
      content: 'v2',
      components: [row(button('b'), button('c'))],
    });
    const update = await watcher.next(
      (f) =>
        f.t === 'MESSAGE_UPDATE' &&
        f.d.id === id &&
        f.d.components?.length === 1 &&
        f.d.components[0].components.length === 2,
    );
    expect(update.d.components).toEqual([row(button('b'), button('c'))]);
    const cleared = await edit(id, { components: [] }).expect(200);
    expect(cleared.body.components).toEqual([]);
    expect((await read(id)).components).toEqual([]);
    // A message with nothing left to show is refused, as without components.
    const bare = await post({ components: [row(button('only'))] }).expect(201);
    await edit(bare.body.id as string, { components: [] }).expect(400);
  });

  it('a bot without MESSAGE_CONTENT reads others’ messages without their components', async () => {
    const { body } = await post({ content: 'secret', components: [row(button('hidden'))] }).expect(
      201,
    );
    expect(await read(body.id as string, `Bot ${blind.botToken}`)).toMatchObject({
      content: '',
      components: [],
    });
    const event = await blindSession.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === body.id);
    expect(event.d).toMatchObject({ content: '', components: [] });
  });

  it('each of Discord’s limits is a 400 at the field’s path (envelope on /v1)', async () => {
    const cases: Array<[unknown[], string, string]> = [
      [
        Array.from({ length: 6 }, (_, i) => row(button(`r${i}`))),
        'components',
        'BASE_TYPE_MAX_LENGTH',
      ],
      [
        [row(...[1, 2, 3, 4, 5, 6].map((i) => button(`b${i}`)))],
        'components.0.components',
        'BASE_TYPE_MAX_LENGTH',
      ],
      [
        [row(EVERY_KIND[1].components[0], button('x'))],
        'components.0.components',
        'COMPONENT_LAYOUT_WIDTH_EXCEEDED',
      ],
      [
        [row(button('dup')), row(button('ok'), button('dup'))],
        'components.1.components.1.custom_id',
        'COMPONENT_CUSTOM_ID_DUPLICATED',
      ],
      [[row(button(''))], 'components.0.components.0.custom_id', 'BASE_TYPE_MIN_LENGTH'],
      [
        [row({ ...button('long'), custom_id: 'x'.repeat(101) })],
        'components.0.components.0.custom_id',
        'BASE_TYPE_MAX_LENGTH',
      ],
      [
        [row({ ...button('long'), label: 'l'.repeat(81) })],
        'components.0.components.0.label',
        'BASE_TYPE_MAX_LENGTH',
      ],
      [
        [row({ type: 2, style: 1, label: 'no id' })],
        'components.0.components.0.custom_id',
        'BASE_TYPE_REQUIRED',
      ],
      [
        [row({ type: 2, style: 5, url: 'https://a.example', custom_id: 'x' })],
        'components.0.components.0.custom_id',
        'COMPONENT_FIELD_NOT_ALLOWED',
      ],
      [
        [row({ type: 2, style: 7, custom_id: 'x' })],
        'components.0.components.0.style',
        'NUMBER_TYPE_MAX',
      ],
      [
        [row({ type: 3, custom_id: 's', options: [] })],
        'components.0.components.0.options',
        'BASE_TYPE_MIN_LENGTH',
      ],
      [
        [
          row({
            type: 3,
            custom_id: 's',
            options: Array.from({ length: 26 }, (_, i) => ({ label: `${i}`, value: `${i}` })),
          }),
        ],
        'components.0.components.0.options',
        'BASE_TYPE_MAX_LENGTH',
      ],
      [
        [row({ type: 3, custom_id: 's', options: [{ label: 'a', value: 'v'.repeat(101) }] })],
        'components.0.components.0.options.0.value',
        'BASE_TYPE_MAX_LENGTH',
      ],
      [
        [row({ type: 5, custom_id: 'u', placeholder: 'p'.repeat(151) })],
        'components.0.components.0.placeholder',
        'BASE_TYPE_MAX_LENGTH',
      ],
      [
        [row({ type: 6, custom_id: 'r', max_values: 26 })],
        'components.0.components.0.max_values',
        'NUMBER_TYPE_MAX',
      ],
      [
        [row({ type: 4, custom_id: 't', style: 1, label: 'Name' })],
        'components.0.components.0.type',
        'BASE_TYPE_CHOICES',
      ],
      [[button('bare')], 'components.0.type', 'BASE_TYPE_CHOICES'],
    ];
    for (const [components, path, code] of cases) {
      const res = await post({ content: 'x', components });
      expect({ path, status: res.status, errors: res.body.errors }).toEqual({
        path,
        status: 400,
        errors: [{ path, code, message: expect.any(String) }],
      });
    }
  });

  it('a link button to a javascript: URL is refused (Discord’s 50035 on /api/v10)', async () => {
    const res = await post(
      { components: [row({ type: 2, style: 5, label: 'x', url: 'javascript:alert(1)' })] },
      `Bot ${bot.botToken}`,
      '/api/v10',
    ).expect(400);
    expect(res.body).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: {
        components: {
          0: {
            components: {
              0: {
                url: {
                  _errors: [{ code: 'URL_TYPE_INVALID_SCHEME', message: expect.any(String) }],
                },
              },
            },
          },
        },
      },
    });
  });

  it('a user’s message with components is refused; with none (or []) it is posted', async () => {
    const res = await post(
      { content: 'hi', components: [row(button('mine'))] },
      owner.token,
    ).expect(400);
    expect(res.body.errors).toEqual([
      { path: 'components', code: 'COMPONENTS_NOT_ALLOWED', message: expect.any(String) },
    ]);
    const own = await post({ content: 'plain', components: [] }, owner.token).expect(201);
    expect(own.body.components).toEqual([]);
    await http(app)
      .patch(`/v1/channels/${g.channelId}/messages/${own.body.id}`)
      .set('Authorization', owner.token)
      .send({ components: [row(button('later'))] })
      .expect(400);
  });

  it('a webhook (none belongs to an application) posts without its components, as on Discord', async () => {
    const hook = await createWebhook(app, owner.token, g.channelId);
    const res = await http(app)
      .post(`/api/v10/webhooks/${hook.id}/${hook.token}?wait=true`)
      .send({ content: 'from a hook', components: [row(button('ignored'))] })
      .expect(200);
    expect(res.body).toMatchObject({ content: 'from a hook', components: [] });
    expect((await read(res.body.id as string)).components).toEqual([]);
  });

  it('401 without a token', async () => {
    await http(app)
      .post(`/v1/channels/${g.channelId}/messages`)
      .send({ content: 'x', components: [row(button('a'))] })
      .expect(401);
  });
});
