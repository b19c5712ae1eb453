import type { ParleyApp } from '../../src/app.setup';
import { DataSource } from 'typeorm';
import { CredentialResolvers } from '../../src/common/auth/credential-resolvers';
import { createTestApp, http, RELAXED_LIMITS } from '../helpers/app';
import { createAdminKey, expireAdminKey } from '../helpers/admin';
import { registerUser } from '../helpers/factories';

describe('Admin API keys', () => {
  let app: ParleyApp;

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('creates a key shown once, stored only as a hash, usable at once', async () => {
    const root = await createAdminKey(app, ['*']);
    const res = await http(app)
      .post('/v1/admin/api-keys')
      .set('Authorization', root.header)
      .set('X-Audit-Log-Reason', encodeURIComponent('hand-out for the audit team'))
      .send({ name: 'auditors', expires_in_days: 30, acls: ['audit_log:view'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      key_id: expect.stringMatching(/^\d+$/),
      key: expect.stringMatching(new RegExp(`^adm_${res.body.key_id}_[A-Za-z0-9_-]{43}$`)),
      name: 'auditors',
      created_at: expect.any(String),
      expires_at: expect.any(String),
      acls: ['audit_log:view'],
    });
    const days = (Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)) / 86_400_000;
    expect(days).toBeCloseTo(30, 3);

    const stored = await app
      .get(DataSource)
      .query('SELECT token_hash, acls FROM admin_api_keys WHERE id = $1', [res.body.key_id]);
    expect(stored[0].token_hash).toHaveLength(32);
    // The secret is base64url and may itself contain "_": take everything after the id.
    const secret = (res.body.key as string).slice(`adm_${res.body.key_id}_`.length);
    expect(secret).toHaveLength(43);
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(stored[0].token_hash.toString('hex')).not.toContain(Buffer.from(secret).toString('hex'));

    // The new key may list keys? No: it lacks admin_api_key:manage.
    const denied = await http(app)
      .get('/v1/admin/api-keys')
      .set('Authorization', `Admin ${res.body.key}`);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({
      code: 'MISSING_ACL',
      required_acl: 'admin_api_key:manage',
    });

    // The use is recorded off the response path: wait (bounded) for the write to land.
    let list = await http(app).get('/v1/admin/api-keys').set('Authorization', root.header);
    const find = () => list.body.find((k: { key_id: string }) => k.key_id === res.body.key_id);
    for (let i = 0; i < 40 && list.status === 200 && find()?.last_used_at === null; i++) {
      await new Promise((r) => setTimeout(r, 50));
      list = await http(app).get('/v1/admin/api-keys').set('Authorization', root.header);
    }
    expect(list.status).toBe(200);
    const listed = find();
    expect(listed).toEqual({
      key_id: res.body.key_id,
      name: 'auditors',
      acls: ['audit_log:view'],
      created_at: res.body.created_at,
      last_used_at: expect.any(String),
      expires_at: res.body.expires_at,
    });
    expect(JSON.stringify(list.body)).not.toContain(res.body.key);

    const audit = await app.get(DataSource).query(
      `SELECT actor_type, actor_id::text, actor_user_id::text, reason FROM audit_log_entries
          WHERE action = 'admin_api_key.create' AND target_id = $1`,
      [res.body.key_id],
    );
    expect(audit).toEqual([
      {
        actor_type: 'admin_key',
        actor_id: root.keyId,
        actor_user_id: root.owner.userId,
        reason: 'hand-out for the audit team',
      },
    ]);
  });

  it('a key cannot grant an ACL it lacks, nor an unknown one', async () => {
    const limited = await createAdminKey(app, ['admin_api_key:manage', 'audit_log:view']);
    const escalate = await http(app)
      .post('/v1/admin/api-keys')
      .set('Authorization', limited.header)
      .send({ name: 'x', acls: ['audit_log:view', 'asset:purge'] });
    expect(escalate.status).toBe(403);
    expect(escalate.body).toMatchObject({ code: 'MISSING_ACL', missing_acls: ['asset:purge'] });

    const star = await http(app)
      .post('/v1/admin/api-keys')
      .set('Authorization', limited.header)
      .send({ name: 'x', acls: ['*'] });
    expect(star.status).toBe(403);

    const unknown = await http(app)
      .post('/v1/admin/api-keys')
      .set('Authorization', limited.header)
      .send({ name: 'x', acls: ['audit_log:view', 'root'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([
      { path: 'acls.1', code: 'INVALID_ACL', message: expect.any(String) },
    ]);

    const ok = await http(app)
      .post('/v1/admin/api-keys')
      .set('Authorization', limited.header)
      .send({ name: 'x', acls: ['audit_log:view'] });
    expect(ok.status).toBe(200);
  });

  it('validates the body', async () => {
    const root = await createAdminKey(app);
    const res = await http(app)
      .post('/v1/admin/api-keys')
      .set('Authorization', root.header)
      .send({ name: '', expires_in_days: 366, acls: 'audit_log:view' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_FORM_BODY');
    expect([...new Set(res.body.errors.map((e: { path: string }) => e.path))].sort()).toEqual([
      'acls',
      'expires_in_days',
      'name',
    ]);
  });

  it('delete revokes at once (cached or not), only the owner’s keys, and answers {success:true}', async () => {
    const root = await createAdminKey(app);
    const child = await createAdminKey(app, ['admin_api_key:manage'], { owner: root.owner });
    expect(
      (await http(app).get('/v1/admin/api-keys').set('Authorization', child.header)).status,
    ).toBe(200);

    const other = await createAdminKey(app);
    const foreign = await http(app)
      .delete(`/v1/admin/api-keys/${child.keyId}`)
      .set('Authorization', other.header);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('ADMIN_API_KEY_NOT_FOUND');

    const del = await http(app)
      .delete(`/v1/admin/api-keys/${child.keyId}`)
      .set('Authorization', root.header);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true });

    const after = await http(app).get('/v1/admin/api-keys').set('Authorization', child.header);
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('UNAUTHORIZED');

    const again = await http(app)
      .delete(`/v1/admin/api-keys/${child.keyId}`)
      .set('Authorization', root.header);
    expect(again.status).toBe(404);
  });

  it('a key never outlives the key that made it (security finding 4)', async () => {
    const parent = await createAdminKey(app, ['admin_api_key:manage', 'audit_log:view'], {
      expiresInDays: 1,
    });
    const create = (body: Record<string, unknown>) =>
      http(app).post('/v1/admin/api-keys').set('Authorization', parent.header).send(body);
    // Without expires_in_days, and asking for longer: the parent's expiry, not "never".
    const unbounded = await create({ name: 'forever', acls: ['audit_log:view'] });
    const longer = await create({ name: 'longer', acls: ['audit_log:view'], expires_in_days: 30 });
    const [parentRow] = await app
      .get(DataSource)
      .query<Array<{ expires_at: Date }>>('SELECT expires_at FROM admin_api_keys WHERE id = $1', [
        parent.keyId,
      ]);
    for (const res of [unbounded, longer]) {
      expect(res.status).toBe(200);
      expect(Date.parse(res.body.expires_at)).toBe(parentRow.expires_at.getTime());
    }
    // Shorter stays shorter.
    const shorter = await create({ name: 'hours', acls: ['audit_log:view'], expires_in_days: 1 });
    expect(Date.parse(shorter.body.expires_at)).toBeLessThanOrEqual(parentRow.expires_at.getTime());

    // Once the parent has expired, so has every key it made.
    await app
      .get(DataSource)
      .query(
        `UPDATE admin_api_keys SET expires_at = now() - interval '1 minute' WHERE id = ANY($1)`,
        [[parent.keyId, unbounded.body.key_id, longer.body.key_id]],
      );
    for (const key of [parent.header, `Admin ${unbounded.body.key}`, `Admin ${longer.body.key}`]) {
      const res = await http(app)
        .post('/v1/admin/audit-logs')
        .set('Authorization', key)
        .send({ limit: 1 });
      expect(res.status).toBe(401);
    }
  });

  it('a narrow key neither sees nor deletes a wider one (security finding 5)', async () => {
    const root = await createAdminKey(app, ['*']);
    const manager = await createAdminKey(app, ['admin_api_key:manage'], { owner: root.owner });
    const auditor = await createAdminKey(app, ['admin_api_key:manage', 'audit_log:view'], {
      owner: root.owner,
    });
    const mine = await http(app)
      .post('/v1/admin/api-keys')
      .set('Authorization', manager.header)
      .send({ name: 'made by the manager', acls: ['admin_api_key:manage'] });
    expect(mine.status).toBe(200);

    const listed = await http(app).get('/v1/admin/api-keys').set('Authorization', manager.header);
    expect(listed.status).toBe(200);
    const ids = (listed.body as Array<{ key_id: string }>).map((k) => k.key_id).sort();
    expect(ids).toEqual([manager.keyId, mine.body.key_id].sort());

    for (const wider of [root, auditor]) {
      const res = await http(app)
        .delete(`/v1/admin/api-keys/${wider.keyId}`)
        .set('Authorization', manager.header);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'MISSING_ACL', missing_acls: expect.any(Array) });
      const still = await http(app).get('/v1/admin/api-keys').set('Authorization', wider.header);
      expect(still.status).toBe(200);
    }
    // Its equals and narrower keys: yes. The root key sees and deletes everything.
    const own = await http(app)
      .delete(`/v1/admin/api-keys/${mine.body.key_id}`)
      .set('Authorization', manager.header);
    expect(own.status).toBe(200);
    const all = await http(app).get('/v1/admin/api-keys').set('Authorization', root.header);
    expect((all.body as unknown[]).length).toBe(3);
    const byRoot = await http(app)
      .delete(`/v1/admin/api-keys/${auditor.keyId}`)
      .set('Authorization', root.header);
    expect(byRoot.status).toBe(200);
  });

  it('an expired key, a malformed key and other schemes are 401; Admin keys only work on /admin', async () => {
    const key = await createAdminKey(app);
    const ok = await http(app).get('/v1/admin/api-keys').set('Authorization', key.header);
    expect(ok.status).toBe(200);
    await expireAdminKey(app, key.keyId);
    const expired = await http(app).get('/v1/admin/api-keys').set('Authorization', key.header);
    expect(expired.status).toBe(401);

    const user = await registerUser(app);
    for (const header of [
      undefined,
      user.token,
      `Bearer ${user.token}`,
      'Admin adm_1_x',
      'Admin nope',
    ]) {
      const req = http(app).get('/v1/admin/api-keys');
      const res = await (header ? req.set('Authorization', header) : req);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }

    const fresh = await createAdminKey(app);
    const me = await http(app).get('/v1/users/@me').set('Authorization', fresh.header);
    expect(me.status).toBe(401);
  });

  it('a key is narrowed when its owner loses ACLs', async () => {
    const key = await createAdminKey(app, ['*']);
    expect(
      (await http(app).get('/v1/admin/api-keys').set('Authorization', key.header)).status,
    ).toBe(200);
    await app
      .get(DataSource)
      .query(`UPDATE users SET acls = '{audit_log:view}' WHERE id = $1`, [key.owner.userId]);
    // The users trigger announces the change; the cached caller is dropped.
    const deadline = Date.now() + 2_000;
    let status = 200;
    while (Date.now() < deadline && status === 200) {
      status = (await http(app).get('/v1/admin/api-keys').set('Authorization', key.header)).status;
    }
    expect(status).toBe(403);
  });
});

describe('Admin API keys across instances and rate limits', () => {
  let one: ParleyApp;
  let two: ParleyApp;

  beforeAll(async () => {
    one = await createTestApp();
    two = await createTestApp({
      env: { RATE_LIMIT_OVERRIDES: `${RELAXED_LIMITS},admin=3/60s,admin:bans=2/60s` },
    });
  });
  afterAll(async () => {
    await one.close();
    await two.close();
  });

  it('a key deleted through one instance is refused by another that had it cached, within 1 s', async () => {
    const root = await createAdminKey(two);
    const victim = await createAdminKey(two, ['audit_log:view'], { owner: root.owner });
    const probe = () =>
      http(one).post('/v1/admin/audit-logs').set('Authorization', victim.header).send({});
    // Until the instance holds the key in its cache: for 2 s after the owner's row changed (the
    // ACL update of createAdminKey), entries tagged with that user are not cached.
    const cached = () => one.get(CredentialResolvers).isCached('admin', victim.key);
    for (let i = 0; i < 100 && !cached(); i++) {
      expect((await probe()).status).toBe(200);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(cached()).toBe(true);

    const del = await http(two)
      .delete(`/v1/admin/api-keys/${victim.keyId}`)
      .set('Authorization', root.header);
    expect(del.status).toBe(200);
    const deadline = Date.now() + 1_000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      status = (await probe()).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 25));
    }
    expect(status).toBe(401);
  });

  it('counts admin requests per key (admin 3/60 s here; bans have their own bucket)', async () => {
    const a = await createAdminKey(two);
    const b = await createAdminKey(two);
    const list = (key: string) => http(two).get('/v1/admin/api-keys').set('Authorization', key);
    for (let i = 0; i < 3; i++) expect((await list(a.header)).status).toBe(200);
    const limited = await list(a.header);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'RATE_LIMITED', global: false });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another key of the same owner's instance is counted on its own.
    expect((await list(b.header)).status).toBe(200);

    const check = () =>
      http(two)
        .post('/v1/admin/bans/ip/check')
        .set('Authorization', b.header)
        .send({ ip: '192.0.2.1' });
    expect((await check()).status).toBe(200);
    expect((await check()).status).toBe(200);
    expect((await check()).status).toBe(429);
  });
});
