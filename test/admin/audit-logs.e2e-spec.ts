import type { ParleyApp } from '../../src/app.setup';
import { createHash, randomInt } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createAdminKey, type TestAdminKey } from '../helpers/admin';
import { createTestApp, http } from '../helpers/app';
import { mailToken } from '../helpers/auth-helpers';
import { registerUser } from '../helpers/factories';
import { createGuild, createWebhook } from '../helpers/guild-factories';
import { createApplication } from '../helpers/oauth2-factories';

interface Entry {
  id: string;
  actor_type: string;
  actor_id: string | null;
  actor_user_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  reason: string | null;
  metadata: Record<string, unknown>;
  ip: string | null;
  created_at: string;
}

const ID = expect.stringMatching(/^\d+$/);
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const KEYS = [
  'action',
  'actor_id',
  'actor_type',
  'actor_user_id',
  'created_at',
  'id',
  'ip',
  'metadata',
  'reason',
  'target_id',
  'target_type',
];
const nullOr = (v: unknown, type: string) => v === null || typeof v === type;

/** Every entry has exactly the documented fields, of the documented types. */
function expectShape(e: Entry): void {
  expect(Object.keys(e).sort()).toEqual(KEYS);
  expect(e).toMatchObject({ id: ID, action: expect.any(String), created_at: ISO });
  expect(e.metadata).toEqual(expect.any(Object));
  for (const key of ['actor_id', 'actor_user_id', 'target_type', 'target_id', 'reason', 'ip']) {
    expect([key, nullOr(e[key as keyof Entry], 'string')]).toEqual([key, true]);
  }
}

/** A word the English stemmer keeps as it is and no other entry contains. */
const word = (): string =>
  'zq' + Array.from({ length: 10 }, () => 'bcdfghjklmnpqrstvwxz'[randomInt(20)]).join('');

const sessionIdHash = (token: string) => createHash('sha256').update(token).digest('base64url');

describe('Admin audit log', () => {
  let app: ParleyApp;
  let auditor: TestAdminKey;

  beforeAll(async () => {
    app = await createTestApp();
    auditor = await createAdminKey(app, ['audit_log:view'], { ownerAcls: ['audit_log:view'] });
  });
  afterAll(() => app.close());

  const list = (body: Record<string, unknown>, header = auditor.header) =>
    http(app).post('/v1/admin/audit-logs').set('Authorization', header).send(body);
  const search = (body: Record<string, unknown>, header = auditor.header) =>
    http(app).post('/v1/admin/audit-logs/search').set('Authorization', header).send(body);

  /** The entries matching `filters` (one page of up to 200), after checking the response shape. */
  async function entries(filters: Record<string, unknown>): Promise<Entry[]> {
    const res = await list({ limit: 200, ...filters });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      entries: expect.any(Array),
      total: res.body.entries.length,
      next_cursor: null,
    });
    for (const e of res.body.entries as Entry[]) expectShape(e);
    return res.body.entries as Entry[];
  }

  /** Creates an admin API key through the API (an audited admin write). */
  async function adminWrite(by: TestAdminKey, name: string, reason?: string) {
    const req = http(app).post('/v1/admin/api-keys').set('Authorization', by.header);
    if (reason) req.set('X-Audit-Log-Reason', encodeURIComponent(reason));
    const res = await req.send({ name, acls: ['audit_log:view'] });
    expect(res.status).toBe(200);
    return res.body.key_id as string;
  }

  describe('credentials', () => {
    it('answers 401 without credentials and 403 MISSING_ACL without audit_log:view', async () => {
      for (const path of ['/v1/admin/audit-logs', '/v1/admin/audit-logs/search']) {
        const anonymous = await http(app).post(path).send({ query: 'x' });
        expect(anonymous.status).toBe(401);
        expect(anonymous.body).toMatchObject({ code: 'UNAUTHORIZED' });
      }
      const other = await createAdminKey(app, ['admin_api_key:manage']);
      for (const send of [list, search]) {
        const res = await send({ query: 'x' }, other.header);
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ code: 'MISSING_ACL', required_acl: 'audit_log:view' });
      }
    });
  });

  describe('security events', () => {
    it('admin writes name the key and its owner, with the reason and the client address', async () => {
      const root = await createAdminKey(app, ['*']);
      const keyId = await adminWrite(root, 'for the auditors', 'onboarding the audit team');
      expect(await entries({ target_type: 'admin_api_key', target_id: keyId })).toEqual([
        {
          id: ID,
          created_at: ISO,
          actor_type: 'admin_key',
          actor_id: root.keyId,
          actor_user_id: root.owner.userId,
          action: 'admin_api_key.create',
          target_type: 'admin_api_key',
          target_id: keyId,
          reason: 'onboarding the audit team',
          metadata: { name: 'for the auditors', acls: ['audit_log:view'], expires_at: null },
          // supertest's ::ffff:127.0.0.1, as clientIpOf records it.
          ip: '127.0.0.1',
        },
      ]);

      // Every admin write carries the address, not only the creation.
      await http(app)
        .delete(`/v1/admin/api-keys/${keyId}`)
        .set('Authorization', root.header)
        .set('X-Audit-Log-Reason', 'offboarding')
        .expect(200);
      expect(await entries({ action: 'admin_api_key.delete', target_id: keyId })).toEqual([
        expect.objectContaining({
          actor_type: 'admin_key',
          actor_id: root.keyId,
          reason: 'offboarding',
          ip: '127.0.0.1',
        }),
      ]);
    });

    it('records login success and failure (never the password)', async () => {
      const user = await registerUser(app);
      const ok = await http(app)
        .post('/v1/auth/login')
        .send({ email: user.email, password: user.password });
      expect(ok.status).toBe(200);
      const wrong = await http(app)
        .post('/v1/auth/login')
        .send({ email: user.email, password: 'not-the-Passw0rd-xyz' });
      expect(wrong.status).toBe(400);
      const forUser = await entries({ target_type: 'user', target_id: user.userId });
      expect(forUser.map((e) => e.action)).toEqual(['auth.login.failed', 'auth.login']);
      expect(forUser[1]).toMatchObject({
        actor_type: 'user',
        actor_id: user.userId,
        actor_user_id: user.userId,
        metadata: { method: 'password', mfa_required: false },
        ip: '127.0.0.1',
      });
      expect(forUser[0]).toMatchObject({
        actor_type: 'anonymous',
        actor_id: null,
        actor_user_id: null,
        metadata: { reason: 'wrong_password' },
        ip: '127.0.0.1',
      });
      expect(JSON.stringify(forUser)).not.toContain('not-the-Passw0rd-xyz');
      expect(JSON.stringify(forUser)).not.toContain(user.password);

      // An unknown address: no target, and the address itself is not kept.
      const since = new Date().toISOString();
      const email = `${word()}@example.com`;
      const unknown = await http(app)
        .post('/v1/auth/login')
        .send({ email, password: 'whatever-Passw0rd' });
      expect(unknown.status).toBe(400);
      const failed = await entries({ from: since, action: 'auth.login.failed' });
      expect(failed).toEqual([
        expect.objectContaining({
          actor_type: 'anonymous',
          target_type: null,
          target_id: null,
          metadata: { reason: 'unknown_email' },
        }),
      ]);
      expect(JSON.stringify(failed)).not.toContain(email.split('@')[0]);
    });

    it('records password change, e-mail change (masked) and password reset', async () => {
      const user = await registerUser(app);
      const newEmail = `${word()}@example.org`;
      const patch = await http(app)
        .patch('/v1/users/@me')
        .set('Authorization', user.token)
        .send({ password: user.password, new_password: 'second-Passw0rd-123', email: newEmail });
      expect(patch.status).toBe(200);
      const changes = await entries({
        target_id: user.userId,
        action: ['user.email.change', 'user.password.change'],
      });
      expect(changes.map((e) => e.action).sort()).toEqual([
        'user.email.change',
        'user.password.change',
      ]);
      const emailChange = changes.find((e) => e.action === 'user.email.change');
      expect(emailChange).toMatchObject({
        actor_type: 'user',
        actor_id: user.userId,
        target_type: 'user',
        metadata: {
          old_email: `${user.email[0]}***@example.com`,
          new_email: `${newEmail[0]}***@example.org`,
        },
      });
      expect(JSON.stringify(changes)).not.toContain('second-Passw0rd-123');

      await http(app).post('/v1/auth/forgot').send({ email: newEmail }).expect(204);
      const reset = await http(app)
        .post('/v1/auth/reset')
        .send({ token: mailToken(app, newEmail, 'reset'), password: 'third-Passw0rd-456' });
      expect(reset.status).toBe(200);
      expect(await entries({ target_id: user.userId, action: 'auth.password.reset' })).toEqual([
        expect.objectContaining({
          actor_type: 'user',
          actor_id: user.userId,
          target_type: 'user',
          metadata: { sessions_ended: true },
          ip: '127.0.0.1',
        }),
      ]);
    });

    it('records session logouts with the acting user', async () => {
      const user = await registerUser(app);
      const second = await http(app)
        .post('/v1/auth/login')
        .send({ email: user.email, password: user.password });
      const other = second.body.token as string;
      const many = await http(app)
        .post('/v1/auth/sessions/logout')
        .set('Authorization', user.token)
        .send({ session_id_hashes: [sessionIdHash(other)], password: user.password });
      expect(many.status).toBe(204);
      const logout = await http(app).post('/v1/auth/logout').set('Authorization', user.token);
      expect(logout.status).toBe(204);

      const byUser = await entries({
        actor_id: user.userId,
        action: ['auth.session.logout', 'auth.sessions.logout'],
      });
      expect(byUser).toEqual([
        expect.objectContaining({
          action: 'auth.session.logout',
          actor_type: 'user',
          actor_user_id: user.userId,
          target_type: 'session',
          target_id: expect.stringMatching(/^\d+$/),
        }),
        expect.objectContaining({
          action: 'auth.sessions.logout',
          target_type: 'user',
          target_id: user.userId,
          metadata: { requested: 1, ended: 1 },
        }),
      ]);
    });

    it('records OAuth2 client-secret and bot-token resets (no secret kept)', async () => {
      const owner = await registerUser(app);
      const application = await createApplication(app, owner);
      const secret = await http(app)
        .post(`/v1/oauth2/applications/${application.id}/client-secret/reset`)
        .set('Authorization', owner.token)
        .set('X-Audit-Log-Reason', 'leaked in a CI log')
        .send({ password: owner.password });
      expect(secret.status).toBe(200);
      const bot = await http(app)
        .post(`/v1/oauth2/applications/${application.id}/bot/reset-token`)
        .set('Authorization', owner.token)
        .send({});
      expect(bot.status).toBe(200);

      const resets = await entries({
        target_type: 'oauth2_application',
        target_id: application.id,
      });
      expect(resets).toEqual([
        expect.objectContaining({
          action: 'oauth2.bot_token.reset',
          actor_type: 'user',
          actor_id: owner.userId,
          reason: null,
          metadata: { bot_user_id: application.botUserId, confirmed_with: 'recent' },
        }),
        expect.objectContaining({
          action: 'oauth2.client_secret.reset',
          actor_type: 'user',
          actor_id: owner.userId,
          reason: 'leaked in a CI log',
          metadata: { confirmed_with: 'password' },
        }),
      ]);
      const text = JSON.stringify(resets);
      expect(text).not.toContain(secret.body.client_secret);
      expect(text).not.toContain((bot.body.token as string).split('.')[1]);
    });

    it('records webhook create and delete, but not executions', async () => {
      const owner = await registerUser(app);
      const guild = await createGuild(app, owner.token);
      const hook = await createWebhook(app, owner.token, guild.channelId, 'Deploys');
      const executed = await http(app)
        .post(`/v1/webhooks/${hook.id}/${hook.token}`)
        .send({ content: 'hello' });
      expect(executed.status).toBeLessThan(300);
      const del = await http(app)
        .delete(`/v1/webhooks/${hook.id}`)
        .set('Authorization', owner.token)
        .set('X-Audit-Log-Reason', 'not needed any more');
      expect(del.status).toBe(204);

      const meta = { name: 'Deploys', guild_id: guild.guildId, channel_id: guild.channelId };
      expect(await entries({ target_type: 'webhook', target_id: hook.id })).toEqual([
        expect.objectContaining({
          action: 'webhook.delete',
          actor_type: 'user',
          actor_id: owner.userId,
          reason: 'not needed any more',
          metadata: { ...meta, via: 'credential' },
        }),
        expect.objectContaining({
          action: 'webhook.create',
          actor_type: 'user',
          actor_id: owner.userId,
          reason: null,
          metadata: meta,
        }),
      ]);

      // Deleting with the webhook's own token: an anonymous actor.
      const other = await createWebhook(app, owner.token, guild.channelId, 'Alerts');
      await http(app).delete(`/v1/webhooks/${other.id}/${other.token}`).expect(204);
      expect(
        await entries({ target_type: 'webhook', target_id: other.id, action: 'webhook.delete' }),
      ).toEqual([
        expect.objectContaining({
          actor_type: 'anonymous',
          actor_id: null,
          metadata: expect.objectContaining({ via: 'token' }),
        }),
      ]);
      expect(JSON.stringify(await entries({ target_id: other.id }))).not.toContain(other.token);
    });
  });

  describe('behind a proxy', () => {
    let proxied: ParleyApp;
    beforeAll(async () => {
      proxied = await createTestApp({ env: { TRUST_PROXY: 'on', IP_AUTHORIZATION: 'on' } });
    });
    afterAll(() => proxied.close());

    it('records the forwarded client address, and the login an IP authorization completes', async () => {
      const user = await registerUser(proxied);
      const from = (ip: string) =>
        http(proxied)
          .post('/v1/auth/login')
          .set('X-Forwarded-For', ip)
          .send({ email: user.email, password: user.password });
      const wrong = await http(proxied)
        .post('/v1/auth/login')
        .set('X-Forwarded-For', '2001:db8::7')
        .send({ email: user.email, password: 'wrong-Passw0rd-1' });
      expect(wrong.status).toBe(400);
      const denied = await from('203.0.113.9');
      expect(denied.status).toBe(403);
      const token = mailToken(proxied, user.email, 'authorize_ip');
      await http(proxied).post('/v1/auth/authorize-ip').send({ token }).expect(204);
      const done = await http(proxied)
        .get('/v1/auth/ip-authorization/poll')
        .query({ ticket: denied.body.ticket as string });
      expect(done.body).toMatchObject({ completed: true, user_id: user.userId });

      expect(await entries({ target_id: user.userId })).toEqual([
        expect.objectContaining({
          action: 'auth.login',
          actor_type: 'user',
          actor_id: user.userId,
          metadata: { method: 'ip_authorization', mfa_required: false },
          ip: '203.0.113.9',
        }),
        expect.objectContaining({
          action: 'auth.login.failed',
          actor_type: 'anonymous',
          metadata: { reason: 'wrong_password' },
          ip: '2001:db8::7',
        }),
      ]);
    });
  });

  describe('filters and pagination', () => {
    it('filters by action (string and array), actor, target and dates', async () => {
      const root = await createAdminKey(app, ['*']);
      const before = new Date(Date.now() - 1000).toISOString();
      const a = await adminWrite(root, 'filter-a');
      const b = await adminWrite(root, 'filter-b');
      const del = await http(app)
        .delete(`/v1/admin/api-keys/${a}`)
        .set('Authorization', root.header);
      expect(del.status).toBe(200);

      const all = await entries({ actor_id: root.keyId });
      expect(all.map((e) => [e.action, e.target_id])).toEqual([
        ['admin_api_key.delete', a],
        ['admin_api_key.create', b],
        ['admin_api_key.create', a],
      ]);
      expect(
        (await entries({ actor_id: root.keyId, action: 'admin_api_key.delete' })).map(
          (e) => e.target_id,
        ),
      ).toEqual([a]);
      expect(
        await entries({
          actor_id: root.keyId,
          action: ['admin_api_key.create', 'admin_api_key.delete'],
        }),
      ).toEqual(all);
      expect(await entries({ actor_id: root.keyId, action: ['user.email.change'] })).toEqual([]);
      expect(
        (await entries({ target_type: 'admin_api_key', target_id: a })).map((e) => e.action),
      ).toEqual(['admin_api_key.delete', 'admin_api_key.create']);
      // Numeric ids are accepted as well as strings.
      expect(await entries({ actor_id: Number(auditor.owner.userId) % 1000 })).toEqual([]);

      // Dates: from is inclusive, to exclusive.
      const newest = all[0];
      expect(await entries({ actor_id: root.keyId, from: before })).toEqual(all);
      expect(await entries({ actor_id: root.keyId, to: before })).toEqual([]);
      expect(await entries({ actor_id: root.keyId, from: newest.created_at })).toEqual([newest]);
      expect(
        (await entries({ actor_id: root.keyId, to: newest.created_at })).map((e) => e.id),
      ).toEqual(all.slice(1).map((e) => e.id));
      expect(await entries({ actor_id: root.keyId, from: '2099-01-01' })).toEqual([]);
    });

    it('walks every page with the cursor, without duplicates, and honours limit and offset', async () => {
      const root = await createAdminKey(app, ['*']);
      const created: string[] = [];
      for (let i = 0; i < 7; i += 1) created.push(await adminWrite(root, `page-${i}`));
      const seen: string[] = [];
      let cursor: string | null = null;
      const sizes: number[] = [];
      do {
        const res = await list({ actor_id: root.keyId, limit: 3, ...(cursor ? { cursor } : {}) });
        expect(res.status).toBe(200);
        expect(res.body.total).toBe(7);
        sizes.push(res.body.entries.length);
        seen.push(...res.body.entries.map((e: Entry) => e.target_id));
        cursor = res.body.next_cursor as string | null;
        expect(sizes.length).toBeLessThan(5);
      } while (cursor);
      expect(sizes).toEqual([3, 3, 1]);
      expect(seen).toEqual([...created].reverse());

      const offset = await list({ actor_id: root.keyId, limit: 2, offset: 5 });
      expect(offset.status).toBe(200);
      expect(offset.body).toEqual({
        entries: [expect.anything(), expect.anything()],
        total: 7,
        next_cursor: null,
      });
      expect(offset.body.entries.map((e: Entry) => e.target_id)).toEqual(seen.slice(5));

      const def = await list({ actor_id: root.keyId });
      expect(def.body.entries).toHaveLength(7);
      expect(def.body.next_cursor).toBeNull();
    });

    it('answers 400 with field paths for bad filters', async () => {
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ from: 'yesterday' }, 'from', 'BASE_TYPE_FORMAT'],
        [{ to: '2026-13-45' }, 'to', 'BASE_TYPE_FORMAT'],
        [{ action: 5 }, 'action', 'BASE_TYPE_STRING'],
        [{ action: [] }, 'action', 'BASE_TYPE_STRING'],
        [{ action: ['auth.login', 3] }, 'action', 'BASE_TYPE_STRING'],
        [{ action: 'x'.repeat(65) }, 'action', 'BASE_TYPE_STRING'],
        [{ actor_id: 'abc' }, 'actor_id', 'INVALID_IS_SNOWFLAKE'],
        [{ target_type: 'x'.repeat(33) }, 'target_type', 'BASE_TYPE_MAX_LENGTH'],
        [{ limit: 0 }, 'limit', 'NUMBER_TYPE_MIN'],
        [{ limit: 201 }, 'limit', 'NUMBER_TYPE_MAX'],
        [{ limit: '10' }, 'limit', 'BASE_TYPE_INTEGER'],
        [{ offset: -1 }, 'offset', 'NUMBER_TYPE_MIN'],
        [{ cursor: 'not-a-cursor' }, 'cursor', 'BASE_TYPE_FORMAT'],
        [{ cursor: 5 }, 'cursor', 'BASE_TYPE_STRING'],
      ];
      for (const [body, path, code] of cases) {
        const res = await list(body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
        expect(res.body).toMatchObject({ code: 'INVALID_FORM_BODY' });
        expect(res.body.errors).toEqual(
          expect.arrayContaining([expect.objectContaining({ path, code })]),
        );
      }
      const both = await list({ cursor: 'bC4x', offset: 1 });
      expect(both.status).toBe(400);
      expect(both.body.errors).toEqual([expect.objectContaining({ path: 'cursor' })]);

      // A search cursor is not a list cursor, and the other way round.
      const root = await createAdminKey(app, ['*']);
      const w = word();
      await adminWrite(root, `${w} one`);
      await adminWrite(root, `${w} two`);
      const page = await search({ query: w, limit: 1 });
      expect(page.body.next_cursor).toEqual(expect.any(String));
      const mixed = await list({ cursor: page.body.next_cursor });
      expect(mixed.status).toBe(400);
      expect(mixed.body.errors).toEqual([expect.objectContaining({ path: 'cursor' })]);

      for (const [body, path] of [
        [{}, 'query'],
        [{ query: '' }, 'query'],
        [{ query: 'x'.repeat(513) }, 'query'],
        [{ query: 'x', from: 'soon' }, 'from'],
      ] as Array<[Record<string, unknown>, string]>) {
        const res = await search(body);
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual(
          expect.arrayContaining([expect.objectContaining({ path })]),
        );
      }
    });
  });

  describe('search', () => {
    it('finds an entry by a word in its reason', async () => {
      const root = await createAdminKey(app, ['*']);
      const w = word();
      const keyId = await adminWrite(root, 'reason-search', `revoking access for ${w} contractors`);
      const res = await search({ query: w });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        entries: [
          {
            id: ID,
            created_at: ISO,
            metadata: { name: 'reason-search', acls: ['audit_log:view'], expires_at: null },
            action: 'admin_api_key.create',
            actor_type: 'admin_key',
            actor_id: root.keyId,
            actor_user_id: root.owner.userId,
            target_type: 'admin_api_key',
            target_id: keyId,
            reason: `revoking access for ${w} contractors`,
            ip: '127.0.0.1',
          },
        ],
        total: 1,
        next_cursor: null,
      });
      // Web-search syntax: a phrase matches, an excluded word removes it.
      expect((await search({ query: `"${w} contractors"` })).body.total).toBe(1);
      expect((await search({ query: `${w} -contractors` })).body.total).toBe(0);
    });

    it('finds entries by words of the action and metadata, ranked, with filters and pages', async () => {
      const owner = await registerUser(app);
      const application = await createApplication(app, owner);
      await http(app)
        .post(`/v1/oauth2/applications/${application.id}/client-secret/reset`)
        .set('Authorization', owner.token)
        .send({ password: owner.password })
        .expect(200);
      const byAction = await search({ query: 'client secret', actor_id: owner.userId });
      expect(byAction.status).toBe(200);
      expect(byAction.body.entries.map((e: Entry) => e.action)).toEqual([
        'oauth2.client_secret.reset',
      ]);

      // The word in the reason (weight B) outranks the word in the metadata, though newer.
      const root = await createAdminKey(app, ['*']);
      const w = word();
      const inReason = await adminWrite(root, 'ranked', `${w} rotation`);
      const inMetadata = await adminWrite(root, `${w} key`);
      const ranked = await search({ query: w });
      expect(ranked.status).toBe(200);
      expect(ranked.body.total).toBe(2);
      expect(ranked.body.entries.map((e: Entry) => e.target_id)).toEqual([inReason, inMetadata]);

      // Filters narrow a search; pages continue with the cursor.
      const filtered = await search({ query: w, target_id: inMetadata });
      expect(filtered.body.entries.map((e: Entry) => e.target_id)).toEqual([inMetadata]);
      expect(filtered.body.total).toBe(1);
      const first = await search({ query: w, limit: 1 });
      expect(first.body).toMatchObject({ total: 2, next_cursor: expect.any(String) });
      const second = await search({ query: w, limit: 1, cursor: first.body.next_cursor });
      expect(second.status).toBe(200);
      expect(second.body).toMatchObject({ total: 2, next_cursor: null });
      expect(
        [...first.body.entries, ...second.body.entries].map((e: Entry) => e.target_id),
      ).toEqual([inReason, inMetadata]);
      const offset = await search({ query: w, offset: 1 });
      expect(offset.body.entries.map((e: Entry) => e.target_id)).toEqual([inMetadata]);
    });
  });

  describe('OpenAPI', () => {
    it('documents both routes: ACL, bodies (action as oneOf) and the page schema', async () => {
      const doc = (await http(app).get('/docs/openapi.json')).body as {
        paths: Record<string, Record<string, Record<string, unknown>>>;
        components: { schemas: Record<string, { properties: Record<string, unknown> }> };
      };
      const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
      for (const [path, operationId, body] of [
        ['/v1/admin/audit-logs', 'list_audit_logs', 'ListAuditLogsRequest'],
        ['/v1/admin/audit-logs/search', 'search_audit_logs', 'SearchAuditLogsRequest'],
      ]) {
        const op = doc.paths[path].post as {
          operationId: string;
          description: string;
          security: unknown;
          requestBody: { content: Record<string, { schema: unknown }> };
          responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
        };
        expect(op.operationId).toBe(operationId);
        expect(op.description).toContain('audit_log:view');
        expect(op.security).toEqual([{ adminApiKey: [] }]);
        expect(op.requestBody.content['application/json'].schema).toEqual(ref(body));
        expect(op.responses['200'].content?.['application/json'].schema).toEqual(
          ref('AuditLogsListResponseSchema'),
        );
      }
      const { schemas } = doc.components;
      expect(schemas.ListAuditLogsRequest.properties.action).toMatchObject({
        oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
      });
      expect(Object.keys(schemas.SearchAuditLogsRequest.properties).sort()).toEqual(
        [...Object.keys(schemas.ListAuditLogsRequest.properties), 'query'].sort(),
      );
      expect(schemas.AuditLogsListResponseSchema.properties.entries).toEqual({
        type: 'array',
        items: ref('AuditLogEntryResponse'),
      });
      expect(Object.keys(schemas.AuditLogEntryResponse.properties).sort()).toEqual(KEYS);
    });
  });

  describe('transactions', () => {
    it('a failed admin write leaves no entry (same transaction)', async () => {
      const db = app.get(DataSource);
      const root = await createAdminKey(app, ['*']);
      const name = `doomed-${word()}`;
      const reasonWord = word();
      // Runs at COMMIT, after the key and its audit entry were written in the transaction: it
      // fails with check_violation (answered 400) only if it sees the entry, which proves both
      // were in one transaction; otherwise with another state (answered 500).
      await db.query(`
        CREATE FUNCTION audit_e2e_fail() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF EXISTS (SELECT 1 FROM audit_log_entries
                      WHERE action = 'admin_api_key.create' AND target_id = NEW.id::text) THEN
            RAISE EXCEPTION 'audit entry seen, failing the write' USING ERRCODE = 'check_violation';
          END IF;
          RAISE EXCEPTION 'no audit entry in this transaction' USING ERRCODE = 'raise_exception';
        END $$`);
      await db.query(`
        CREATE CONSTRAINT TRIGGER audit_e2e_fail AFTER INSERT ON admin_api_keys
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
        WHEN (NEW.name LIKE 'doomed-%') EXECUTE FUNCTION audit_e2e_fail()`);
      try {
        const res = await http(app)
          .post('/v1/admin/api-keys')
          .set('Authorization', root.header)
          .set('X-Audit-Log-Reason', `${reasonWord} this write must fail`)
          .send({ name, acls: ['audit_log:view'] });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'BAD_REQUEST' });
      } finally {
        await db.query('DROP TRIGGER audit_e2e_fail ON admin_api_keys');
        await db.query('DROP FUNCTION audit_e2e_fail()');
      }
      expect(await db.query('SELECT 1 FROM admin_api_keys WHERE name = $1', [name])).toEqual([]);
      expect(await entries({ actor_id: root.keyId })).toEqual([]);
      expect((await search({ query: reasonWord })).body.total).toBe(0);

      // The same write without the trigger commits with its entry.
      const keyId = await adminWrite(root, name);
      expect((await entries({ actor_id: root.keyId })).map((e) => e.target_id)).toEqual([keyId]);
    });
  });
});
