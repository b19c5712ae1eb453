import { GuildRolesService } from '../../src/modules/guilds/guild-roles.service';
import type { ParleyApp } from '../../src/app.setup';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../src/config/app.config';
import { createAdminKey, type TestAdminKey } from '../helpers/admin';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import {
  addMember,
  createGuild,
  createWebhook,
  PNG_DATA_URI,
  type TestGuild,
} from '../helpers/guild-factories';
import { createApplication } from '../helpers/oauth2-factories';

// A second, different image (GIF magic number), so that an icon change leaves a former file.
const GIF_DATA_URI = `data:image/gif;base64,${Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1').toString('base64')}`;
const UNKNOWN_ID = '1000000000000000001';
const MANAGE_CHANNELS = (1n << 4n).toString();

interface AuditRow {
  actor_type: string;
  actor_id: string;
  target_id: string;
  reason: string | null;
  metadata: Record<string, unknown>;
}

describe('Admin asset purge and bulk guild members', () => {
  let app: ParleyApp;
  let db: DataSource;
  let root: TestAdminKey;

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    root = await createAdminKey(app, ['asset:purge', 'bulk:add:guild_members']);
  });
  afterAll(() => app.close());

  const auditOf = (action: string, targetId: string): Promise<AuditRow[]> =>
    db.query(
      `SELECT actor_type, actor_id::text AS actor_id, target_id, reason, metadata
         FROM audit_log_entries WHERE action = $1 AND target_id = $2 ORDER BY id`,
      [action, targetId],
    );

  describe('POST /admin/assets/purge', () => {
    const assetsDir = () => join(app.get(AppConfig).blobDir, 'assets');
    const filesIn = (kind: string, ownerId: string): string[] => {
      const dir = join(assetsDir(), kind, ownerId);
      return existsSync(dir) ? readdirSync(dir).map((f) => join(dir, f)) : [];
    };

    /** A guild with an icon (and a former icon), a banner and a webhook with an avatar. */
    async function guildWithAssets(owner: TestUser) {
      const guild = await createGuild(app, owner.token);
      for (const body of [{ icon: PNG_DATA_URI }, { icon: GIF_DATA_URI, banner: PNG_DATA_URI }]) {
        const res = await http(app)
          .patch(`/v1/guilds/${guild.guildId}`)
          .set('Authorization', owner.token)
          .send(body);
        expect(res.status).toBe(200);
      }
      const hook = await createWebhook(app, owner.token, guild.channelId);
      const avatar = await http(app)
        .patch(`/v1/webhooks/${hook.id}`)
        .set('Authorization', owner.token)
        .send({ avatar: PNG_DATA_URI });
      expect(avatar.status).toBe(200);
      expect(avatar.body.avatar).toMatch(/^[0-9a-f]{32}$/);
      const posted = await http(app)
        .post(`/v1/webhooks/${hook.id}/${hook.token}?wait=true`)
        .send({ content: 'with the stored avatar' });
      expect(posted.status).toBe(200);
      expect(posted.body.author.avatar).toBe(avatar.body.avatar);
      const overridden = await http(app)
        .post(`/v1/webhooks/${hook.id}/${hook.token}?wait=true`)
        .send({ content: 'with a URL avatar', avatar_url: 'https://cdn.example/a.png' });
      expect(overridden.status).toBe(200);
      const files = [
        ...filesIn('icons', guild.guildId),
        ...filesIn('banners', guild.guildId),
        ...filesIn('avatars', hook.id),
      ];
      return { guild, hook, files };
    }

    it('deletes the files, clears every reference, reports unknown guilds, audits with the reason', async () => {
      const owner = await registerUser(app);
      const { guild, hook, files } = await guildWithAssets(owner);
      expect(files).toHaveLength(4); // two icons, a banner, an avatar
      const bytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
      expect(bytes).toBeGreaterThan(0);

      const res = await http(app)
        .post('/v1/admin/assets/purge')
        .set('Authorization', root.header)
        .set('X-Audit-Log-Reason', encodeURIComponent('abusive imagery, ticket 4711'))
        .send({ guild_ids: [guild.guildId, UNKNOWN_ID, Number(guild.guildId.slice(0, 15))] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        results: [
          { guild_id: guild.guildId, deleted: 4, bytes_freed: bytes, errors: [] },
          { guild_id: UNKNOWN_ID, deleted: 0, bytes_freed: 0, errors: ['UNKNOWN_GUILD'] },
          {
            guild_id: guild.guildId.slice(0, 15),
            deleted: 0,
            bytes_freed: 0,
            errors: ['UNKNOWN_GUILD'],
          },
        ],
      });
      for (const f of files) expect(existsSync(f)).toBe(false);

      const g = await http(app)
        .get(`/v1/guilds/${guild.guildId}`)
        .set('Authorization', owner.token);
      expect(g.status).toBe(200);
      expect(g.body).toMatchObject({ id: guild.guildId, icon: null, banner: null });
      const w = await http(app).get(`/v1/webhooks/${hook.id}`).set('Authorization', owner.token);
      expect(w.status).toBe(200);
      expect(w.body).toMatchObject({ id: hook.id, avatar: null });
      const msgs = await http(app)
        .get(`/v1/channels/${guild.channelId}/messages`)
        .set('Authorization', owner.token);
      expect(msgs.status).toBe(200);
      const avatars = Object.fromEntries(
        (msgs.body as Array<{ content: string; author: { avatar: string | null } }>).map((m) => [
          m.content,
          m.author.avatar,
        ]),
      );
      expect(avatars).toEqual({
        'with the stored avatar': null,
        'with a URL avatar': 'https://cdn.example/a.png',
      });

      expect(await auditOf('asset.purge', guild.guildId)).toEqual([
        {
          actor_type: 'admin_key',
          actor_id: root.keyId,
          target_id: guild.guildId,
          reason: 'abusive imagery, ticket 4711',
          metadata: {
            icon_cleared: true,
            banner_cleared: true,
            webhooks: 1,
            webhook_avatars_cleared: 1,
            message_avatars_cleared: 1,
            files: 4,
            bytes,
          },
        },
      ]);
      expect(await auditOf('asset.purge', UNKNOWN_ID)).toEqual([]);

      // A second purge finds nothing left to delete.
      const again = await http(app)
        .post('/v1/admin/assets/purge')
        .set('Authorization', root.header)
        .send({ guild_ids: [guild.guildId, guild.guildId] });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({
        results: [{ guild_id: guild.guildId, deleted: 0, bytes_freed: 0, errors: [] }],
      });
    });

    it('leaves other guilds alone', async () => {
      const owner = await registerUser(app);
      const purged = await guildWithAssets(owner);
      const kept = await guildWithAssets(owner);
      const res = await http(app)
        .post('/v1/admin/assets/purge')
        .set('Authorization', root.header)
        .send({ guild_ids: [purged.guild.guildId] });
      expect(res.status).toBe(200);
      expect(res.body.results[0].deleted).toBe(4);
      for (const f of kept.files) expect(existsSync(f)).toBe(true);
      const g = await http(app)
        .get(`/v1/guilds/${kept.guild.guildId}`)
        .set('Authorization', owner.token);
      expect(g.body.icon).toMatch(/^[0-9a-f]{32}$/);
      expect(g.body.banner).toMatch(/^[0-9a-f]{32}$/);
    });

    it('validates guild_ids: 1 to 100 snowflakes', async () => {
      const cases: Array<[unknown, string]> = [
        [Array.from({ length: 101 }, (_, i) => String(1_000_000 + i)), 'BASE_TYPE_MAX_LENGTH'],
        [[], 'BASE_TYPE_MIN_LENGTH'],
        [['12', 'not-an-id'], 'INVALID_IS_SNOWFLAKE'],
        ['123', 'BASE_TYPE_ARRAY'],
      ];
      for (const [guildIds, code] of cases) {
        const res = await http(app)
          .post('/v1/admin/assets/purge')
          .set('Authorization', root.header)
          .send({ guild_ids: guildIds });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'INVALID_FORM_BODY' });
        expect(res.body.errors).toContainEqual({
          path: 'guild_ids',
          code,
          message: expect.any(String),
        });
      }
      const missing = await http(app)
        .post('/v1/admin/assets/purge')
        .set('Authorization', root.header)
        .send({});
      expect(missing.status).toBe(400);
      expect(missing.body.errors[0].path).toBe('guild_ids');
    });
  });

  describe('POST /admin/bulk/add-guild-members', () => {
    let owner: TestUser;
    let guild: TestGuild;
    let roleId: string;

    /** Roles have no route yet: a role of `guildId` made by their owner, as the app makes them. */
    async function createRole(guildId: string, permissions = '0'): Promise<string> {
      const role = await db.transaction((m) =>
        app.get(GuildRolesService).create(m, guildId, {
          name: 'channel managers',
          permissions: BigInt(permissions),
          position: 1,
        }),
      );
      return role.id;
    }

    const rolesOf = async (userId: string): Promise<string[] | undefined> => {
      const rows = await db.query<Array<{ roles: string[] }>>(
        'SELECT roles::text[] AS roles FROM guild_members WHERE guild_id = $1 AND user_id = $2',
        [guild.guildId, userId],
      );
      return rows[0]?.roles;
    };

    const createChannel = (user: TestUser) =>
      http(app)
        .post(`/v1/guilds/${guild.guildId}/channels`)
        .set('Authorization', user.token)
        .send({ name: 'ops' });

    beforeEach(async () => {
      owner = await registerUser(app);
      guild = await createGuild(app, owner.token);
      roleId = await createRole(guild.guildId, MANAGE_CHANNELS);
    });

    it('adds new users, keeps existing members (who gain the roles), reports unknown users and bots', async () => {
      const [fresh1, fresh2, existing] = await Promise.all([
        registerUser(app),
        registerUser(app),
        registerUser(app),
      ]);
      await addMember(app, guild.guildId, existing.userId);
      const bot = await createApplication(app, owner);
      expect((await createChannel(existing)).status).toBe(403);

      const res = await http(app)
        .post('/v1/admin/bulk/add-guild-members')
        .set('Authorization', root.header)
        .set('X-Audit-Log-Reason', encodeURIComponent('onboarding cohort 7'))
        .send({
          guild_id: guild.guildId,
          user_ids: [
            fresh1.userId,
            existing.userId,
            UNKNOWN_ID,
            fresh2.userId,
            bot.botUserId,
            fresh1.userId,
            owner.userId,
          ],
          role_ids: [roleId, guild.guildId],
        });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        successful: [fresh1.userId, existing.userId, fresh2.userId, owner.userId],
        failed: [
          { id: UNKNOWN_ID, error: 'UNKNOWN_USER' },
          { id: bot.botUserId, error: 'BOT_USER' },
        ],
      });

      // Members now, holding the role: its MANAGE_CHANNELS lets them create a channel.
      for (const user of [fresh1, fresh2, existing]) {
        const g = await http(app)
          .get(`/v1/guilds/${guild.guildId}`)
          .set('Authorization', user.token);
        expect(g.status).toBe(200);
        expect(await rolesOf(user.userId)).toEqual([roleId]);
        expect((await createChannel(user)).status).toBe(201);
      }
      expect(await rolesOf(bot.botUserId)).toBeUndefined();

      // (The set-up's own bulk add of `existing` is another key's entry.)
      const audit = (await auditOf('bulk.add_guild_members', guild.guildId)).filter(
        (entry) => entry.actor_id === root.keyId,
      );
      expect(audit).toEqual([
        {
          actor_type: 'admin_key',
          actor_id: root.keyId,
          target_id: guild.guildId,
          reason: 'onboarding cohort 7',
          metadata: {
            requested: 6,
            added: 2,
            already_members: 2,
            roles_added_to_existing: 2,
            failed: 2,
            role_ids: [roleId],
            added_user_ids: expect.arrayContaining([fresh1.userId, fresh2.userId]),
          },
        },
      ]);

      // Again: everyone is a member with the role already; nothing is rewritten.
      const again = await http(app)
        .post('/v1/admin/bulk/add-guild-members')
        .set('Authorization', root.header)
        .send({
          guild_id: guild.guildId,
          user_ids: [fresh1.userId, existing.userId],
          role_ids: [roleId],
        });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ successful: [fresh1.userId, existing.userId], failed: [] });
      const second = (await auditOf('bulk.add_guild_members', guild.guildId)).filter(
        (entry) => entry.actor_id === root.keyId,
      );
      expect(second).toHaveLength(2);
      expect(second[1].metadata).toMatchObject({
        added: 0,
        already_members: 2,
        roles_added_to_existing: 0,
      });
    });

    it('without role_ids adds plain members', async () => {
      const user = await registerUser(app);
      const res = await http(app)
        .post('/v1/admin/bulk/add-guild-members')
        .set('Authorization', root.header)
        .send({ guild_id: guild.guildId, user_ids: [user.userId] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ successful: [user.userId], failed: [] });
      expect(await rolesOf(user.userId)).toEqual([]);
      expect((await createChannel(user)).status).toBe(403);
    });

    it('refuses roles of another guild with a field path, and changes nothing', async () => {
      const user = await registerUser(app);
      const otherGuild = await createGuild(app, owner.token);
      const foreignRole = await createRole(otherGuild.guildId);
      const res = await http(app)
        .post('/v1/admin/bulk/add-guild-members')
        .set('Authorization', root.header)
        .send({
          guild_id: guild.guildId,
          user_ids: [user.userId],
          role_ids: [roleId, foreignRole, UNKNOWN_ID],
        });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        code: 'INVALID_FORM_BODY',
        message: expect.any(String),
        errors: [
          { path: 'role_ids.1', code: 'UNKNOWN_ROLE', message: expect.any(String) },
          { path: 'role_ids.2', code: 'UNKNOWN_ROLE', message: expect.any(String) },
        ],
      });
      expect(await rolesOf(user.userId)).toBeUndefined();
      expect(await auditOf('bulk.add_guild_members', guild.guildId)).toEqual([]);
    });

    it('unknown guild → 404 UNKNOWN_GUILD', async () => {
      const user = await registerUser(app);
      const res = await http(app)
        .post('/v1/admin/bulk/add-guild-members')
        .set('Authorization', root.header)
        .send({ guild_id: UNKNOWN_ID, user_ids: [user.userId] });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'UNKNOWN_GUILD', message: expect.any(String) });
    });

    it('validates the body: 1 to 1000 user ids, snowflakes, guild_id required', async () => {
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [
          {
            guild_id: guild.guildId,
            user_ids: Array.from({ length: 1001 }, (_, i) => String(i + 1)),
          },
          'user_ids',
          'BASE_TYPE_MAX_LENGTH',
        ],
        [{ guild_id: guild.guildId, user_ids: [] }, 'user_ids', 'BASE_TYPE_MIN_LENGTH'],
        [{ guild_id: guild.guildId, user_ids: ['x1'] }, 'user_ids', 'INVALID_IS_SNOWFLAKE'],
        [{ user_ids: ['1'] }, 'guild_id', 'INVALID_IS_SNOWFLAKE'],
        [
          { guild_id: guild.guildId, user_ids: ['1'], role_ids: 'r' },
          'role_ids',
          'BASE_TYPE_ARRAY',
        ],
      ];
      for (const [body, path, code] of cases) {
        const res = await http(app)
          .post('/v1/admin/bulk/add-guild-members')
          .set('Authorization', root.header)
          .send(body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('INVALID_FORM_BODY');
        expect(res.body.errors).toContainEqual({ path, code, message: expect.any(String) });
      }
    });

    it('accepts the full 1000 ids in one call', async () => {
      const users = await Promise.all([registerUser(app), registerUser(app)]);
      const ids = [
        ...users.map((u) => u.userId),
        ...Array.from({ length: 998 }, (_, i) => String(2_000_000 + i)),
      ];
      const res = await http(app)
        .post('/v1/admin/bulk/add-guild-members')
        .set('Authorization', root.header)
        .send({ guild_id: guild.guildId, user_ids: ids });
      expect(res.status).toBe(200);
      expect(res.body.successful).toEqual(users.map((u) => u.userId));
      expect(res.body.failed).toHaveLength(998);
      expect(res.body.failed[0]).toEqual({ id: '2000000', error: 'UNKNOWN_USER' });
    });
  });

  describe('credentials', () => {
    const routes: Array<[string, string, Record<string, unknown>]> = [
      ['/v1/admin/assets/purge', 'asset:purge', { guild_ids: [UNKNOWN_ID] }],
      [
        '/v1/admin/bulk/add-guild-members',
        'bulk:add:guild_members',
        { guild_id: UNKNOWN_ID, user_ids: [UNKNOWN_ID] },
      ],
    ];

    it.each(routes)(
      '%s: 401 without credentials, 403 MISSING_ACL without %s',
      async (path, acl, body) => {
        const anonymous = await http(app).post(path).send(body);
        expect(anonymous.status).toBe(401);
        expect(anonymous.body).toEqual({ code: 'UNAUTHORIZED', message: expect.any(String) });

        const session = await registerUser(app);
        const wrongKind = await http(app).post(path).set('Authorization', session.token).send(body);
        expect(wrongKind.status).toBe(401);

        const other = acl === 'asset:purge' ? 'bulk:add:guild_members' : 'asset:purge';
        const narrow = await createAdminKey(app, [other, 'audit_log:view']);
        const denied = await http(app).post(path).set('Authorization', narrow.header).send(body);
        expect(denied.status).toBe(403);
        expect(denied.body).toMatchObject({ code: 'MISSING_ACL', required_acl: acl });
      },
    );
  });
});
