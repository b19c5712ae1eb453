import { DataSource } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { ALL_PERMISSIONS, Permissions } from '../../src/modules/guilds/permissions';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { addMember, createGuild, giveRole } from '../helpers/guild-factories';
import { createApplication, issueTokens, type TestApplication } from '../helpers/oauth2-factories';

const P = Permissions;
// What @everyone holds in a new guild (view, send, history, files, USE_APPLICATION_COMMANDS).
const EVERYONE =
  P.VIEW_CHANNEL |
  P.SEND_MESSAGES |
  P.READ_MESSAGE_HISTORY |
  P.ATTACH_FILES |
  P.USE_APPLICATION_COMMANDS;

/** Who installs: the owner, or a member whose roles hold `permissions` (plus @everyone's). */
const INSTALLERS: Array<{ name: string; permissions: bigint | 'owner' }> = [
  { name: 'the owner', permissions: 'owner' },
  { name: 'an ADMINISTRATOR', permissions: P.ADMINISTRATOR },
  { name: 'MANAGE_GUILD only', permissions: P.MANAGE_GUILD },
  { name: 'MANAGE_GUILD + MANAGE_WEBHOOKS', permissions: P.MANAGE_GUILD | P.MANAGE_WEBHOOKS },
  { name: 'MANAGE_GUILD + KICK/BAN', permissions: P.MANAGE_GUILD | P.KICK_MEMBERS | P.BAN_MEMBERS },
];

const REQUESTS: Array<{ name: string; permissions: bigint }> = [
  { name: 'nothing', permissions: 0n },
  { name: 'SEND_MESSAGES (held by @everyone)', permissions: P.SEND_MESSAGES },
  { name: 'MANAGE_GUILD', permissions: P.MANAGE_GUILD },
  { name: 'MANAGE_WEBHOOKS', permissions: P.MANAGE_WEBHOOKS },
  { name: 'KICK_MEMBERS', permissions: P.KICK_MEMBERS },
  { name: 'ADMINISTRATOR', permissions: P.ADMINISTRATOR },
  { name: 'MANAGE_GUILD + MANAGE_WEBHOOKS', permissions: P.MANAGE_GUILD | P.MANAGE_WEBHOOKS },
  { name: 'every bit (2^63 - 1)', permissions: (1n << 63n) - 1n },
];

/** What the installer holds: the owner and ADMINISTRATOR hold every permission Parley defines. */
function held(installer: bigint | 'owner'): bigint {
  if (installer === 'owner' || (installer & P.ADMINISTRATOR) !== 0n) return ALL_PERMISSIONS;
  return installer | EVERYONE;
}

/**
 * Security finding 1 (a privilege escalation through bot install) and its neighbours: nobody
 * grants a permission they do not hold — the OAuth2 bot install (consent `permissions`) and the
 * roles a bot gives when it adds a member. A matrix of installers × requested permissions.
 */
describe('the grant rule', () => {
  let app: ParleyApp;
  let db: DataSource;
  let owner: TestUser;
  let developer: TestUser;

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    owner = await registerUser(app);
    developer = await registerUser(app);
  });
  afterAll(() => app.close());

  const botRolePermissions = async (guildId: string, botUserId: string) => {
    const rows = await db.query<Array<{ permissions: string }>>(
      `SELECT r.permissions::text AS permissions FROM guild_members m
         JOIN guild_roles r ON r.id = ANY(m.roles)
        WHERE m.guild_id = $1 AND m.user_id = $2`,
      [guildId, botUserId],
    );
    return rows.map((r) => BigInt(r.permissions));
  };
  const isMember = async (guildId: string, userId: string) =>
    (
      await db.query<unknown[]>(
        'SELECT 1 FROM guild_members WHERE guild_id = $1 AND user_id = $2',
        [guildId, userId],
      )
    ).length === 1;

  describe.each(INSTALLERS)('bot install by $name', ({ permissions: installer }) => {
    it.each(REQUESTS)('requesting $name', async ({ permissions: requested }) => {
      const { guildId } = await createGuild(app, owner.token);
      let by = owner;
      if (installer !== 'owner') {
        by = await registerUser(app);
        await addMember(app, guildId, by.userId);
        await giveRole(app, guildId, by.userId, installer);
      }
      const client = await createApplication(app, developer);
      const res = await http(app)
        .post('/v1/oauth2/authorize/consent')
        .set('Authorization', by.token)
        .send({
          client_id: client.id,
          scope: 'bot',
          guild_id: guildId,
          permissions: requested.toString(),
        });
      const missing = requested & ALL_PERMISSIONS & ~held(installer);
      if (missing === 0n) {
        expect(res.status).toBe(200);
        expect(await isMember(guildId, client.botUserId)).toBe(true);
        const granted = requested & ALL_PERMISSIONS;
        expect(await botRolePermissions(guildId, client.botUserId)).toEqual(
          granted === 0n ? [] : [granted],
        );
      } else {
        expect(res.status).toBe(403);
        expect(res.body).toEqual({
          code: 'MISSING_PERMISSIONS',
          message: expect.any(String),
          missing_permissions: missing.toString(),
        });
        // Nothing of the install stays: no membership, no role, no authorization.
        expect(await isMember(guildId, client.botUserId)).toBe(false);
        const roles = await db.query<unknown[]>(
          `SELECT 1 FROM guild_roles WHERE guild_id = $1 AND name <> 'test role' AND id <> guild_id`,
          [guildId],
        );
        expect(roles).toEqual([]);
      }
    });
  });

  it('stops the probe’s chain: a MANAGE_GUILD member cannot install an administrator bot', async () => {
    const { guildId } = await createGuild(app, owner.token);
    const mallory = await registerUser(app);
    await addMember(app, guildId, mallory.userId);
    await giveRole(app, guildId, mallory.userId, P.MANAGE_GUILD);
    const own = await createApplication(app, mallory);
    const res = await http(app)
      .post('/v1/oauth2/authorize/consent')
      .set('Authorization', mallory.token)
      .send({
        client_id: own.id,
        scope: 'bot',
        guild_id: guildId,
        permissions: '9223372036854775807',
      });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('MISSING_PERMISSIONS');
    const webhooks = await http(app)
      .get(`/v1/guilds/${guildId}/webhooks`)
      .set('Authorization', `Bot ${own.botToken}`);
    expect(webhooks.status).toBe(404);
  });
});

/**
 * Security finding 11: nobody is put in a guild without their consent. `PUT /guilds/{g}/members/{u}`
 * is Discord's "Add Guild Member": a bot presents the user's OAuth2 access token with the
 * `guilds.join` scope, granted to the bot's own application; the roles it gives follow the grant rule.
 */
describe('adding members: the user’s guilds.join grant, presented by a bot of the same application', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let developer: TestUser;

  beforeAll(async () => {
    app = await createTestApp();
    owner = await registerUser(app);
    developer = await registerUser(app);
  });
  afterAll(() => app.close());

  /** A guild with `client`'s bot installed by the owner carrying `permissions`. */
  async function guildWithBot(client: TestApplication, permissions: bigint): Promise<string> {
    const { guildId } = await createGuild(app, owner.token);
    const res = await http(app)
      .post('/v1/oauth2/authorize/consent')
      .set('Authorization', owner.token)
      .send({
        client_id: client.id,
        scope: 'bot',
        guild_id: guildId,
        permissions: `${permissions}`,
      });
    expect(res.status).toBe(200);
    return guildId;
  }

  const put = (guildId: string, userId: string, auth: string, body: Record<string, unknown>) =>
    http(app).put(`/v1/guilds/${guildId}/members/${userId}`).set('Authorization', auth).send(body);

  it('adds the user who granted guilds.join, once; 204 the second time', async () => {
    const client = await createApplication(app, developer);
    const guildId = await guildWithBot(client, P.CREATE_INSTANT_INVITE);
    const user = await registerUser(app);
    const { access_token } = await issueTokens(app, user, client, 'identify guilds.join');
    const added = await put(guildId, user.userId, `Bot ${client.botToken}`, { access_token });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      user: expect.objectContaining({ id: user.userId, username: user.username }),
      roles: [],
      joined_at: expect.any(String),
    });
    const again = await put(guildId, user.userId, `Bot ${client.botToken}`, { access_token });
    expect(again.status).toBe(204);
    const seen = await http(app).get(`/v1/guilds/${guildId}`).set('Authorization', user.token);
    expect(seen.status).toBe(200);
  });

  it('refuses everything else: no grant, the wrong user, scope or application, a session, no invite permission', async () => {
    const client = await createApplication(app, developer);
    const other = await createApplication(app, developer);
    const guildId = await guildWithBot(client, P.CREATE_INSTANT_INVITE);
    const user = await registerUser(app);
    const stranger = await registerUser(app);
    const join = (await issueTokens(app, user, client, 'guilds.join')).access_token;
    const identifyOnly = (await issueTokens(app, user, client, 'identify')).access_token;
    const otherApp = (await issueTokens(app, user, other, 'guilds.join')).access_token;
    const bot = `Bot ${client.botToken}`;
    const invalid = { code: 'INVALID_OAUTH2_ACCESS_TOKEN', message: expect.any(String) };

    for (const [userId, token] of [
      [user.userId, 'not-a-token'],
      [stranger.userId, join], // the grant is the user's, not the stranger's
      [user.userId, identifyOnly],
      [user.userId, otherApp],
      [user.userId, user.token], // a session token is no OAuth2 grant
    ]) {
      const res = await put(guildId, userId, bot, { access_token: token });
      expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: invalid });
    }
    const missing = await put(guildId, user.userId, bot, {});
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].path).toBe('access_token');

    // Not a bot: even the guild's owner cannot put someone in it.
    const bySession = await put(guildId, user.userId, owner.token, { access_token: join });
    expect(bySession.status).toBe(403);
    expect(bySession.body.code).toBe('ACCESS_DENIED');
    const anonymous = await http(app)
      .put(`/v1/guilds/${guildId}/members/${user.userId}`)
      .send({ access_token: join });
    expect(anonymous.status).toBe(401);

    // A bot without CREATE_INSTANT_INVITE there, and a bot that is not in the guild.
    const noInvite = await guildWithBot(client, 0n);
    const refused = await put(noInvite, user.userId, bot, { access_token: join });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('MISSING_PERMISSIONS');
    const { guildId: elsewhere } = await createGuild(app, owner.token);
    const outside = await put(elsewhere, user.userId, bot, { access_token: join });
    expect(outside.status).toBe(404);
    expect(outside.body.code).toBe('UNKNOWN_GUILD');

    const nobodyJoined = await http(app)
      .get(`/v1/guilds/${guildId}`)
      .set('Authorization', user.token);
    expect(nobodyJoined.status).toBe(404);
  });

  const BOTS: Array<{ name: string; permissions: bigint }> = [
    { name: 'INVITE only', permissions: P.CREATE_INSTANT_INVITE },
    { name: 'INVITE + MANAGE_ROLES', permissions: P.CREATE_INSTANT_INVITE | P.MANAGE_ROLES },
    {
      name: 'INVITE + MANAGE_ROLES + KICK',
      permissions: P.CREATE_INSTANT_INVITE | P.MANAGE_ROLES | P.KICK_MEMBERS,
    },
    { name: 'ADMINISTRATOR', permissions: P.ADMINISTRATOR },
  ];
  const ROLES: Array<{ name: string; permissions: bigint }> = [
    { name: 'SEND_MESSAGES', permissions: P.SEND_MESSAGES },
    { name: 'KICK_MEMBERS', permissions: P.KICK_MEMBERS },
    { name: 'MANAGE_ROLES', permissions: P.MANAGE_ROLES },
    { name: 'ADMINISTRATOR', permissions: P.ADMINISTRATOR },
  ];

  describe.each(BOTS)('a bot holding $name', ({ permissions: botPermissions }) => {
    it.each(ROLES)(
      'gives a role carrying $name only if it holds it',
      async ({ permissions: rolePermissions }) => {
        const client = await createApplication(app, developer);
        const guildId = await guildWithBot(client, botPermissions);
        const role = await giveRole(app, guildId, owner.userId, rolePermissions);
        const user = await registerUser(app);
        const { access_token } = await issueTokens(app, user, client, 'guilds.join');
        const res = await put(guildId, user.userId, `Bot ${client.botToken}`, {
          access_token,
          roles: [role],
        });
        const holds =
          (botPermissions & P.ADMINISTRATOR) !== 0n ? ALL_PERMISSIONS : botPermissions | EVERYONE;
        const mayManageRoles = (holds & P.MANAGE_ROLES) !== 0n;
        if (mayManageRoles && (rolePermissions & ~holds) === 0n) {
          expect(res.status).toBe(201);
          expect(res.body.roles).toEqual([role]);
        } else {
          expect(res.status).toBe(403);
          expect(res.body.code).toBe('MISSING_PERMISSIONS');
          const member = await http(app)
            .get(`/v1/guilds/${guildId}`)
            .set('Authorization', user.token);
          expect(member.status).toBe(404);
        }
      },
    );
  });
});
