import type { ParleyApp } from '../src/app.setup';
import { Permissions } from '../src/modules/guilds/permissions';
import { createTestApp, http } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import { addMember, createGuild, type TestGuild } from './helpers/guild-factories';
import {
  createApplication,
  installBot,
  issueTokens,
  type TestApplication,
} from './helpers/oauth2-factories';

const UNKNOWN = '1234567890123456789';

const slash = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `The ${name} command`,
  ...extra,
});

/** Discord's command object as every route answers it. */
const commandShape = (fields: Record<string, unknown>) => ({
  id: expect.any(String),
  type: 1,
  application_id: expect.any(String),
  name: expect.any(String),
  name_localizations: null,
  description: expect.any(String),
  description_localizations: null,
  default_member_permissions: null,
  contexts: null,
  integration_types: [0],
  nsfw: false,
  version: expect.stringMatching(/^\d+$/),
  ...fields,
});

/** Discord's application command routes (global and guild), their rules, limits and access. */
describe('application commands', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let member: TestUser;
  let g: TestGuild;
  let bot: TestApplication;
  let other: TestApplication;

  const as = (auth: string) => ({
    get: (url: string) => http(app).get(url).set('Authorization', auth),
    post: (url: string, body: unknown) =>
      http(app)
        .post(url)
        .set('Authorization', auth)
        .send(body as object),
    put: (url: string, body: unknown) =>
      http(app)
        .put(url)
        .set('Authorization', auth)
        .send(body as object),
    patch: (url: string, body: unknown) =>
      http(app)
        .patch(url)
        .set('Authorization', auth)
        .send(body as object),
    delete: (url: string) => http(app).delete(url).set('Authorization', auth),
  });
  const botAuth = () => as(`Bot ${bot.botToken}`);
  const globalUrl = (prefix = '/v1') => `${prefix}/applications/${bot.id}/commands`;
  const guildUrl = (prefix = '/v1') =>
    `${prefix}/applications/${bot.id}/guilds/${g.guildId}/commands`;

  beforeAll(async () => {
    app = await createTestApp();
    [owner, member] = await Promise.all([registerUser(app), registerUser(app)]);
    g = await createGuild(app, owner.token);
    await addMember(app, g.guildId, member.userId);
    bot = await createApplication(app, owner);
    other = await createApplication(app, owner);
    await installBot(app, owner, bot, g.guildId);
  });
  afterAll(() => app?.close());

  describe('global commands', () => {
    it('creates (201), upserts on name and type (200), lists, gets, edits and deletes', async () => {
      const created = await botAuth().post(globalUrl(), slash('ping')).expect(201);
      expect(created.body).toEqual(
        commandShape({ application_id: bot.id, name: 'ping', dm_permission: true }),
      );
      expect(created.body).not.toHaveProperty('guild_id');

      const upserted = await botAuth()
        .post(globalUrl(), slash('ping', { description: 'Pong!' }))
        .expect(200);
      expect(upserted.body).toMatchObject({ id: created.body.id, description: 'Pong!' });
      expect(upserted.body.version).not.toBe(created.body.version);

      const list = await botAuth().get(globalUrl()).expect(200);
      expect(list.body.map((c: { name: string }) => c.name)).toContain('ping');
      await botAuth().get(`${globalUrl()}/${created.body.id}`).expect(200);

      const edited = await botAuth()
        .patch(`${globalUrl()}/${created.body.id}`, {
          name_localizations: { fr: 'sonner' },
          default_member_permissions: String(Permissions.MANAGE_GUILD),
        })
        .expect(200);
      expect(edited.body).toMatchObject({
        id: created.body.id,
        name: 'ping',
        description: 'Pong!',
        name_localizations: { fr: 'sonner' },
        default_member_permissions: String(Permissions.MANAGE_GUILD),
      });

      await botAuth().delete(`${globalUrl()}/${created.body.id}`).expect(204);
      const gone = await botAuth().get(`${globalUrl()}/${created.body.id}`).expect(404);
      expect(gone.body).toMatchObject({ code: 'UNKNOWN_APPLICATION_COMMAND' });
      const goneDiscord = await botAuth()
        .get(`${globalUrl('/api/v10')}/${created.body.id}`)
        .expect(404);
      expect(goneDiscord.body).toEqual({ code: 10063, message: 'Unknown application command' });
      await botAuth().patch(`${globalUrl()}/${UNKNOWN}`, { description: 'x' }).expect(404);
      await botAuth().delete(`${globalUrl()}/${UNKNOWN}`).expect(404);
    });

    it('stores every option type, subcommands, groups and context-menu commands as given', async () => {
      const body = {
        name: 'kitchen-sink',
        description: 'Every option',
        description_localizations: { de: 'Alles' },
        nsfw: true,
        contexts: [0, 1],
        integration_types: [0, 1],
        default_member_permissions: '0',
        options: [
          {
            type: 1,
            name: 'values',
            description: 'Value options',
            options: [
              {
                type: 3,
                name: 'text',
                description: 'A string',
                required: true,
                min_length: 2,
                max_length: 10,
              },
              {
                type: 4,
                name: 'count',
                description: 'An integer',
                required: true,
                choices: [
                  { name: 'one', value: 1 },
                  { name: 'two', value: 2, name_localizations: { fr: 'deux' } },
                ],
              },
              { type: 5, name: 'flag', description: 'A boolean' },
              { type: 6, name: 'who', description: 'A user' },
              { type: 7, name: 'where', description: 'A channel', channel_types: [0, 2] },
              { type: 8, name: 'role', description: 'A role' },
              { type: 9, name: 'any', description: 'A mentionable' },
              { type: 10, name: 'ratio', description: 'A number', min_value: 0.5, max_value: 2 },
              { type: 11, name: 'file', description: 'An attachment' },
              { type: 3, name: 'search', description: 'Autocompleted', autocomplete: true },
            ],
          },
          {
            type: 2,
            name: 'group',
            description: 'A group',
            options: [{ type: 1, name: 'inner', description: 'A subcommand' }],
          },
        ],
      };
      const res = await botAuth().post(globalUrl(), body).expect(201);
      expect(res.body).toMatchObject({
        ...body,
        options: [
          {
            ...body.options[0],
            options: (body.options[0].options as object[]).map((o) => expect.objectContaining(o)),
          },
          {
            ...body.options[1],
            options: [expect.objectContaining({ type: 1, name: 'inner' })],
          },
        ],
      });
      const user = await botAuth().post(globalUrl(), { type: 2, name: 'High Five' }).expect(201);
      expect(user.body).toMatchObject({ type: 2, name: 'High Five', description: '' });
      expect(user.body).not.toHaveProperty('options');
      await botAuth().post(globalUrl(), { type: 3, name: 'Quote Message' }).expect(201);
    });

    it('answers broken rules with 50035 and field errors on /api/v10', async () => {
      const res = await botAuth()
        .post(globalUrl('/api/v10'), {
          name: 'Bad Name',
          description: '',
          options: [
            { type: 3, name: 'optional', description: 'optional first' },
            { type: 3, name: 'req', description: 'then required', required: true },
            { type: 4, name: 'n', description: 'n', choices: [{ name: 'a', value: 'a' }] },
            { type: 1, name: 'sub', description: 'mixed with values' },
          ],
        })
        .expect(400);
      expect(res.body).toEqual({
        code: 50035,
        message: 'Invalid Form Body',
        errors: {
          name: {
            _errors: [expect.objectContaining({ code: 'APPLICATION_COMMAND_INVALID_NAME' })],
          },
          description: {
            _errors: [expect.objectContaining({ code: 'APPLICATION_COMMAND_INVALID_DESCRIPTION' })],
          },
          options: {
            _errors: [
              expect.objectContaining({ code: 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID' }),
            ],
            1: {
              required: {
                _errors: [
                  expect.objectContaining({ code: 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID' }),
                ],
              },
            },
            2: {
              choices: {
                0: { value: { _errors: [expect.objectContaining({ code: 'BASE_TYPE_INTEGER' })] } },
              },
            },
          },
        },
      });
    });

    it('answers the same in the /v1 envelope, with dotted paths', async () => {
      const res = await botAuth()
        .post(globalUrl(), {
          name: 'x',
          description: 'y',
          options: [
            {
              type: 2,
              name: 'group',
              description: 'a group of values',
              options: [{ type: 3, name: 'v', description: 'not a subcommand' }],
            },
            {
              type: 3,
              name: 'dup',
              description: 'd',
              choices: [{ name: 'a', value: 'a' }],
              autocomplete: true,
            },
            { type: 3, name: 'dup', description: 'd', min_value: 1 },
          ],
        })
        .expect(400);
      expect(res.body.code).toBe('INVALID_FORM_BODY');
      expect(res.body.errors.map((e: { path: string; code: string }) => [e.path, e.code])).toEqual(
        expect.arrayContaining([
          ['options.0.options.0.type', 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID'],
          ['options.1.autocomplete', 'APPLICATION_COMMAND_OPTION_CHOICES_INVALID'],
          ['options.2.min_value', 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID'],
          ['options.2.name', 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS'],
        ]),
      );
      const menu = await botAuth()
        .post(globalUrl(), { type: 2, name: 'Menu', description: 'none allowed' })
        .expect(400);
      expect(menu.body.errors).toEqual([
        expect.objectContaining({
          path: 'description',
          code: 'APPLICATION_COMMAND_INVALID_DESCRIPTION',
        }),
      ]);
      const locale = await botAuth()
        .post(globalUrl(), slash('loc', { name_localizations: { xx: 'nope', fr: 'Majuscule' } }))
        .expect(400);
      expect(locale.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
        'name_localizations.fr',
        'name_localizations.xx',
      ]);
    });

    it('edits keep Discord’s rules: a taken name, a bad option, the type stays', async () => {
      const a = await botAuth().post(globalUrl(), slash('edit-a')).expect(201);
      await botAuth().post(globalUrl(), slash('edit-b')).expect(201);
      const taken = await botAuth()
        .patch(`${globalUrl('/api/v10')}/${a.body.id}`, { name: 'edit-b' })
        .expect(400);
      expect(taken.body).toEqual({
        code: 50035,
        message: 'Invalid Form Body',
        errors: {
          name: {
            _errors: [expect.objectContaining({ code: 'APPLICATION_COMMANDS_DUPLICATE_NAME' })],
          },
        },
      });
      const bad = await botAuth()
        .patch(`${globalUrl()}/${a.body.id}`, {
          type: 2,
          options: [{ type: 12, name: 'x', description: 'y' }],
        })
        .expect(400);
      expect(bad.body.errors).toEqual([
        expect.objectContaining({ path: 'options.0.type', code: 'BASE_TYPE_CHOICES' }),
      ]);
      const kept = await botAuth().get(`${globalUrl()}/${a.body.id}`).expect(200);
      expect(kept.body).toMatchObject({ type: 1, name: 'edit-a', version: a.body.version });
    });

    it('answers a body that is not an object with 400, never 500', async () => {
      for (const body of [[slash('x')], 'text', 42]) {
        const res = await http(app)
          .post(globalUrl())
          .set('Authorization', `Bot ${bot.botToken}`)
          .set('Content-Type', 'application/json')
          .send(JSON.stringify(body));
        expect([res.status, res.body.code]).toEqual([400, expect.any(String)]);
      }
      const res = await botAuth().post(globalUrl(), { name: 5, options: 'no', nsfw: 'yes' });
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
        'description',
        'name',
        'nsfw',
        'options',
      ]);
    });

    it('limits options and choices to 25', async () => {
      const options = Array.from({ length: 26 }, (_, i) => ({
        type: 3,
        name: `o${i}`,
        description: 'd',
      }));
      const tooMany = await botAuth().post(globalUrl(), slash('many', { options })).expect(400);
      expect(tooMany.body.errors).toEqual([
        expect.objectContaining({ path: 'options', code: 'BASE_TYPE_MAX_LENGTH' }),
      ]);
      const choices = Array.from({ length: 26 }, (_, i) => ({ name: `c${i}`, value: `c${i}` }));
      const res = await botAuth()
        .post(
          globalUrl(),
          slash('choosy', { options: [{ type: 3, name: 'c', description: 'd', choices }] }),
        )
        .expect(400);
      expect(res.body.errors).toEqual([
        expect.objectContaining({ path: 'options.0.choices', code: 'BASE_TYPE_MAX_LENGTH' }),
      ]);
    });
  });

  describe('guild commands', () => {
    it('creates in the guild (guild_id set, no dm_permission) and overwrites the set with PUT', async () => {
      const first = await botAuth().post(guildUrl(), slash('alpha')).expect(201);
      expect(first.body).toEqual(
        commandShape({ application_id: bot.id, guild_id: g.guildId, name: 'alpha' }),
      );
      expect(first.body).not.toHaveProperty('dm_permission');
      await botAuth().post(guildUrl(), slash('beta')).expect(201);

      const put = await botAuth()
        .put(guildUrl('/api/v10'), [slash('alpha'), slash('gamma'), { type: 3, name: 'Report' }])
        .expect(200);
      expect(put.body.map((c: { name: string }) => c.name)).toEqual(['alpha', 'gamma', 'Report']);
      expect(put.body[0].id).toBe(first.body.id);
      // Nothing changed on alpha: its version stays.
      expect(put.body[0].version).toBe(first.body.version);
      const list = await botAuth().get(guildUrl()).expect(200);
      expect(list.body.map((c: { name: string }) => c.name).sort()).toEqual(
        ['Report', 'alpha', 'gamma'].sort(),
      );
      // Guild commands are not global ones.
      const global = await botAuth().get(globalUrl()).expect(200);
      expect(global.body.map((c: { name: string }) => c.name)).not.toContain('gamma');
      await botAuth().get(`${globalUrl()}/${first.body.id}`).expect(404);

      const empty = await botAuth().put(guildUrl(), []).expect(200);
      expect(empty.body).toEqual([]);
    });

    it('refuses duplicate names in a PUT, and a body that is not a list', async () => {
      const dup = await botAuth()
        .put(guildUrl(), [slash('same'), slash('same')])
        .expect(400);
      expect(dup.body.errors).toEqual([
        expect.objectContaining({ path: '1.name', code: 'APPLICATION_COMMANDS_DUPLICATE_NAME' }),
      ]);
      const notList = await botAuth().put(guildUrl(), { name: 'x' }).expect(400);
      expect(notList.body.code).toBe('INVALID_FORM_BODY');
    });

    it('refuses a guild the bot is not in: 403 Missing Access (50001)', async () => {
      const elsewhere = await createGuild(app, owner.token);
      const url = `/api/v10/applications/${bot.id}/guilds/${elsewhere.guildId}/commands`;
      const res = await botAuth().post(url, slash('nope')).expect(403);
      expect(res.body).toEqual({ code: 50001, message: 'Missing Access' });
      await botAuth().get(url).expect(403);
      await botAuth().get(`/v1/applications/${bot.id}/guilds/${UNKNOWN}/commands`).expect(403);
    });
  });

  describe('limits', () => {
    it('5 USER and 5 MESSAGE commands, 100 CHAT_INPUT ones (30032)', async () => {
      const limited = await createApplication(app, owner);
      const auth = as(`Bot ${limited.botToken}`);
      const url = `/api/v10/applications/${limited.id}/commands`;
      for (let i = 0; i < 5; i++) await auth.post(url, { type: 2, name: `User ${i}` }).expect(201);
      const sixth = await auth.post(url, { type: 2, name: 'User 5' }).expect(400);
      expect(sixth.body).toEqual({
        code: 30032,
        message: 'Maximum number of application commands reached',
      });
      // An upsert of an existing one is no new command.
      await auth.post(url, { type: 2, name: 'User 4' }).expect(200);
      const hundredOne = Array.from({ length: 101 }, (_, i) => slash(`c${i}`));
      await auth.put(url, hundredOne).expect(400);
      await auth.put(url, hundredOne.slice(0, 100)).expect(200);
    });

    it('200 creates a day per scope (30034)', async () => {
      const busy = await createApplication(app, owner);
      const auth = as(`Bot ${busy.botToken}`);
      const url = `/api/v10/applications/${busy.id}/commands`;
      const batch = (p: string) => Array.from({ length: 100 }, (_, i) => slash(`${p}${i}`));
      await auth.put(url, batch('a')).expect(200);
      await auth.put(url, batch('b')).expect(200);
      await auth.put(url, []).expect(200);
      const res = await auth.post(url, slash('one-more')).expect(400);
      expect(res.body).toEqual({
        code: 30034,
        message: 'Max number of daily application command creates has been reached (200)',
      });
      // The limit is the day's creates, not the commands there are.
      expect((await auth.get(url).expect(200)).body).toEqual([]);
    });
  });

  describe('who may manage them', () => {
    it('401 without credentials on every route', async () => {
      const one = `${globalUrl()}/${UNKNOWN}`;
      const guildOne = `${guildUrl()}/${UNKNOWN}`;
      const calls = [
        http(app).get(globalUrl()),
        http(app).post(globalUrl()).send(slash('x')),
        http(app).put(globalUrl()).send([]),
        http(app).get(one),
        http(app).patch(one).send({}),
        http(app).delete(one),
        http(app).get(guildUrl()),
        http(app).post(guildUrl()).send(slash('x')),
        http(app).put(guildUrl()).send([]),
        http(app).get(guildOne),
        http(app).patch(guildOne).send({}),
        http(app).delete(guildOne),
        http(app).get(`/v1/guilds/${g.guildId}/application-command-index`),
      ];
      for (const res of await Promise.all(calls)) {
        expect([res.status, res.body.code]).toEqual([401, 'UNAUTHORIZED']);
      }
    });

    it('refuses another application’s bot and a session token', async () => {
      const otherBot = as(`Bot ${other.botToken}`);
      const res = await otherBot.get(globalUrl('/api/v10')).expect(403);
      expect(res.body).toEqual({ code: 50001, message: 'Missing Access' });
      const v1 = await otherBot.post(globalUrl(), slash('x')).expect(403);
      expect(v1.body.code).toBe('ACCESS_DENIED');
      await otherBot.put(guildUrl(), []).expect(403);
      await as(owner.token).get(globalUrl()).expect(403);
      await as(`Bot ${bot.botToken}`).get(`/v1/applications/${UNKNOWN}/commands`).expect(403);
    });

    it('takes the owner’s Bearer token with applications.commands.update, and no other', async () => {
      const withScope = await issueTokens(app, owner, bot, 'identify applications.commands.update');
      const bearer = as(`Bearer ${withScope.access_token}`);
      await bearer.post(globalUrl(), slash('via-bearer')).expect(201);
      await bearer.get(guildUrl()).expect(200);

      const without = await issueTokens(app, owner, bot, 'identify');
      const missing = await as(`Bearer ${without.access_token}`).get(globalUrl()).expect(403);
      expect(missing.body.code).toBe('MISSING_OAUTH_SCOPE');

      // Another user's grant of the scope is not the owner's.
      const stranger = await issueTokens(app, member, bot, 'applications.commands.update');
      await as(`Bearer ${stranger.access_token}`).get(globalUrl()).expect(403);
    });
  });

  describe('the guild command index', () => {
    it('lists the commands of the guild’s bots that the caller may use', async () => {
      const indexed = await createApplication(app, owner);
      await installBot(app, owner, indexed, g.guildId);
      const auth = as(`Bot ${indexed.botToken}`);
      await auth.put(`/v1/applications/${indexed.id}/commands`, [
        slash('everyone'),
        slash('managers', { default_member_permissions: String(Permissions.MANAGE_GUILD) }),
        slash('admins', { default_member_permissions: '0' }),
        slash('dms-only', { contexts: [1] }),
      ]);
      await auth
        .put(`/v1/applications/${indexed.id}/guilds/${g.guildId}/commands`, [slash('local')])
        .expect(200);
      // A bot that is not in the guild: its commands are not listed.
      await as(`Bot ${other.botToken}`)
        .post(`/v1/applications/${other.id}/commands`, slash('absent'))
        .expect(201);

      const names = async (user: TestUser) => {
        const res = await as(user.token)
          .get(`/api/v10/guilds/${g.guildId}/application-command-index`)
          .expect(200);
        expect(res.body.version).toMatch(/^\d+$/);
        expect(res.body.applications).toEqual(
          expect.arrayContaining([
            {
              id: indexed.id,
              name: expect.any(String),
              description: null,
              icon: null,
              bot_id: indexed.botUserId,
            },
          ]),
        );
        expect(res.body.applications.map((a: { id: string }) => a.id)).not.toContain(other.id);
        return (res.body.application_commands as Array<{ name: string; application_id: string }>)
          .filter((c) => c.application_id === indexed.id)
          .map((c) => c.name)
          .sort();
      };
      expect(await names(member)).toEqual(['everyone', 'local']);
      expect(await names(owner)).toEqual(['admins', 'everyone', 'local', 'managers']);

      const outsider = await registerUser(app);
      const res = await as(outsider.token)
        .get(`/v1/guilds/${g.guildId}/application-command-index`)
        .expect(404);
      expect(res.body.code).toBe('UNKNOWN_GUILD');
      await as(`Bot ${indexed.botToken}`)
        .get(`/v1/guilds/${g.guildId}/application-command-index`)
        .expect(403);
    });

    it('a new guild’s @everyone has USE_APPLICATION_COMMANDS (1 << 31)', async () => {
      const roles = await as(owner.token).get(`/v1/guilds/${g.guildId}/roles`).expect(200);
      const everyone = (roles.body as Array<{ id: string; permissions: string }>).find(
        (r) => r.id === g.guildId,
      );
      expect(BigInt(everyone!.permissions) & (1n << 31n)).toBe(1n << 31n);
    });
  });
});
