import type { ParleyApp } from '../../src/app.setup';
import { ALL_ACLS } from '../../src/modules/admin/acls';
import { createTestApp, http } from '../helpers/app';
import { createAdminKey, expireAdminKey, type TestAdminKey } from '../helpers/admin';
import { registerUser, type TestUser } from '../helpers/factories';
import { createGuild } from '../helpers/guild-factories';

type Method = 'get' | 'post' | 'delete';

interface AdminOperation {
  operationId: string;
  method: Method;
  template: string;
  /** The ACLs named by the operation's description (any one of them admits the key). */
  acls: string[];
}

/** What a valid call of each admin operation needs, prepared for one key that holds the ACL. */
type Fixture = (key: TestAdminKey) => Promise<{ path?: Record<string, string>; body?: unknown }>;

/**
 * Every admin route × every kind of credential: no header, another scheme, an unknown key, a
 * revoked key, an expired key → 401; a key holding every ACL but the route's → 403 MISSING_ACL;
 * a key holding only the route's ACL → 2xx. The routes come from the live OpenAPI document, so a
 * new admin route without a fixture here fails the suite.
 */
describe('Admin ACL matrix', () => {
  let app: ParleyApp;
  let operations: AdminOperation[];
  let user: TestUser;
  let revoked: TestAdminKey;
  let expired: TestAdminKey;
  let root: TestAdminKey;

  const subjects = { user: '', guild: '', archive: '', archiveGuild: '' };

  beforeAll(async () => {
    app = await createTestApp();
    const doc = (await http(app).get('/docs/openapi.json')).body as {
      paths: Record<string, Record<string, { operationId: string; description?: string }>>;
    };
    operations = Object.entries(doc.paths)
      .filter(([template]) => template.startsWith('/v1/admin'))
      .flatMap(([template, ops]) =>
        Object.entries(ops).map(([method, op]) => ({
          operationId: op.operationId,
          method: method as Method,
          template,
          acls: aclsOf(op.description ?? ''),
        })),
      );
    user = await registerUser(app);
    root = await createAdminKey(app, ['*']);
    revoked = await createAdminKey(app, ['*']);
    const del = await http(app)
      .delete(`/v1/admin/api-keys/${revoked.keyId}`)
      .set('Authorization', revoked.header);
    expect(del.status).toBe(200);
    expired = await createAdminKey(app, ['*']);
    await expireAdminKey(app, expired.keyId);

    subjects.user = user.userId;
    subjects.guild = (await createGuild(app, user.token)).guildId;
  });
  afterAll(() => app.close());

  const completedArchive = async (key: TestAdminKey) => {
    const res = await http(app)
      .post('/v1/admin/archives/user')
      .set('Authorization', key.header)
      .send({ user_id: subjects.user });
    expect(res.status).toBe(200);
    const id = (res.body.archive_id ?? res.body.id) as string;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const details = await http(app)
        .get(`/v1/admin/archives/user/${subjects.user}/${id}`)
        .set('Authorization', key.header);
      if (details.body.status === 'completed') return id;
      if (Date.now() > deadline || details.body.status === 'failed') {
        throw new Error(`archive not completed: ${JSON.stringify(details.body)}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  const FIXTURES: Record<string, Fixture> = {
    create_admin_api_key: async () => ({ body: { name: 'matrix', acls: [] } }),
    list_admin_api_keys: async () => ({}),
    get_sso_config: async () => ({}),
    delete_admin_api_key: async (key) => {
      const victim = await createAdminKey(app, [], { owner: key.owner, ownerAcls: ['*'] });
      return { path: { keyId: victim.keyId } };
    },
    trigger_user_archive: async () => ({ body: { user_id: subjects.user } }),
    trigger_guild_archive: async () => ({ body: { guild_id: subjects.guild } }),
    list_archives: async () => ({ body: {} }),
    get_archive_details: async () => {
      subjects.archive ||= await completedArchive(root);
      return {
        path: { subjectType: 'user', subjectId: subjects.user, archiveId: subjects.archive },
      };
    },
    get_archive_download_url: async () => {
      subjects.archive ||= await completedArchive(root);
      return {
        path: { subjectType: 'user', subjectId: subjects.user, archiveId: subjects.archive },
      };
    },
    purge_guild_assets: async () => ({ body: { guild_ids: [subjects.guild] } }),
    purge_user_attachments: async () => ({ body: { user_id: subjects.user } }),
    purge_guild_attachments: async () => ({ body: { guild_id: subjects.guild } }),
    list_audit_logs: async () => ({ body: {} }),
    search_audit_logs: async () => ({ body: { query: 'admin' } }),
    add_email_ban: async () => ({ body: { email: `matrix-${Date.now()}@banned.example` } }),
    check_email_ban_status: async () => ({ body: { email: 'someone@example.com' } }),
    list_email_bans: async () => ({ body: {} }),
    remove_email_ban: async () => ({ body: { email: 'someone@example.com' } }),
    add_ip_ban: async () => ({ body: { ip: '198.51.100.77' } }),
    check_ip_ban_status: async () => ({ body: { ip: '198.51.100.78' } }),
    list_ip_bans: async () => ({ body: {} }),
    remove_ip_ban: async () => ({ body: { ip: '198.51.100.77' } }),
    add_phone_ban: async () => ({ body: { phone: '+15555550100' } }),
    check_phone_ban_status: async () => ({ body: { phone: '+15555550101' } }),
    list_phone_bans: async () => ({ body: {} }),
    remove_phone_ban: async () => ({ body: { phone: '+15555550100' } }),
    bulk_add_guild_members: async () => ({
      body: { guild_id: subjects.guild, user_ids: [(await registerUser(app)).userId] },
    }),
  };

  const send = (
    op: AdminOperation,
    path: Record<string, string>,
    header?: string,
    body?: unknown,
  ) => {
    const url = op.template.replace(/\{(\w+)\}/g, (_m, name: string) => path[name] ?? '1');
    let req = http(app)[op.method](url);
    if (header) req = req.set('Authorization', header);
    return op.method === 'get' ? req : req.send(body ?? {});
  };

  it('covers the 24 admin operations of the spec, the SSO configuration read and the attachment purges, each naming its ACL', () => {
    expect(operations.map((o) => o.operationId).sort()).toEqual(Object.keys(FIXTURES).sort());
    for (const op of operations) {
      expect({ op: op.operationId, acls: op.acls.length > 0 }).toEqual({
        op: op.operationId,
        acls: true,
      });
      for (const acl of op.acls) expect(ALL_ACLS).toContain(acl);
    }
  });

  it('401 for no header, another scheme, an unknown, revoked or expired key', async () => {
    const unknownKey = `Admin adm_${revoked.keyId}1_${'A'.repeat(43)}`;
    const failures: string[] = [];
    for (const op of operations) {
      const { path, body } = await FIXTURES[op.operationId](root);
      for (const [label, header] of [
        ['no header', undefined],
        ['session token', user.token],
        ['Bearer session', `Bearer ${user.token}`],
        ['unknown key', unknownKey],
        ['revoked key', revoked.header],
        ['expired key', expired.header],
      ] as Array<[string, string | undefined]>) {
        const res = await send(op, path ?? {}, header, body);
        if (res.status !== 401 || res.body.code !== 'UNAUTHORIZED') {
          failures.push(`${op.operationId} with ${label}: ${res.status} ${res.text.slice(0, 100)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('403 MISSING_ACL for a key with every other ACL; 2xx for a key with only the route’s ACL', async () => {
    const failures: string[] = [];
    for (const op of operations) {
      const others = ALL_ACLS.filter((a) => a !== '*' && !op.acls.includes(a));
      const without = await createAdminKey(app, others);
      const { path, body } = await FIXTURES[op.operationId](without);
      const denied = await send(op, path ?? {}, without.header, body);
      if (denied.status !== 403 || denied.body.code !== 'MISSING_ACL') {
        failures.push(
          `${op.operationId} without ${op.acls.join(',')}: ${denied.status} ${denied.text.slice(0, 100)}`,
        );
      }

      const withAcl = await createAdminKey(app, [op.acls[0]]);
      const fixture = await FIXTURES[op.operationId](withAcl);
      const allowed = await send(op, fixture.path ?? {}, withAcl.header, fixture.body);
      if (allowed.status < 200 || allowed.status > 299) {
        failures.push(
          `${op.operationId} with ${op.acls[0]}: ${allowed.status} ${allowed.text.slice(0, 160)}`,
        );
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('Admin request examples in Swagger', () => {
  let app: ParleyApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('every example body Swagger UI offers passes the route’s validation', async () => {
    const doc = (await http(app).get('/docs/openapi.json')).body as {
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            requestBody?: {
              content: Record<string, { examples?: Record<string, { value: unknown }> }>;
            };
          }
        >
      >;
    };
    const key = await createAdminKey(app, ['*']);
    const failures: string[] = [];
    let checked = 0;
    for (const [template, ops] of Object.entries(doc.paths)) {
      if (!template.startsWith('/v1/admin')) continue;
      for (const [method, op] of Object.entries(ops)) {
        const examples = op.requestBody?.content['application/json']?.examples ?? {};
        for (const [name, { value }] of Object.entries(examples)) {
          const res = await http(app)
            [method as 'post'](template.replace(/\{\w+\}/g, '1300000000000000000'))
            .set('Authorization', key.header)
            .send(value as object);
          checked += 1;
          // Unknown ids in an example may be 404; a 400 means the example itself is invalid.
          if (res.status === 400 || res.status >= 500) {
            failures.push(
              `${op.operationId} example "${name}": ${res.status} ${res.text.slice(0, 160)}`,
            );
          }
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(30);
    expect(failures).toEqual([]);
  });
});

/** The ACL names in an operation description's "Requires ACL `…`" sentence. */
function aclsOf(description: string): string[] {
  const line = description.split('\n')[0] ?? '';
  return [...line.matchAll(/`([a-z_*][a-z_:*]*)`/g)]
    .map((m) => m[1])
    .filter((name) => name !== '*');
}
