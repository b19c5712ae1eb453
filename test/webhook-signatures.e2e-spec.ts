import definitions from '@octokit/webhooks-examples';
import type { ParleyApp } from '../src/app.setup';
import { createHmac } from 'node:crypto';
import { DataSource } from 'typeorm';
import { encryptSecret } from '../src/common/crypto/tokens';
import { AppConfig } from '../src/config/app.config';
import forgejoPullRequest from '../src/modules/webhooks/transformers/fixtures/forgejo-pull-request.json';
import giteaPush from '../src/modules/webhooks/transformers/fixtures/gitea-push.json';
import gogsIssues from '../src/modules/webhooks/transformers/fixtures/gogs-issues.json';
import { createTestApp, http, RELAXED_LIMITS, unique } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import { addMember, createGuild, createWebhook, type TestGuild } from './helpers/guild-factories';
import type { TestWebhook } from './helpers/guild-factories';
import { findSecretsAtRest, secretNeedles } from './helpers/secret-scan';

type Payload = Record<string, any>;

const SECRET = 'whsec-Ünïcode-0123456789abcdefXYZ';
const OTHER_SECRET = 'another-secret-of-32-characters!';

const hmacHex = (secret: string, body: string | Buffer) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
const hubSignature = (secret: string, body: string | Buffer) => `sha256=${hmacHex(secret, body)}`;

function pushExample(): Payload {
  const push = definitions.find((d) => d.name === 'push');
  const example = push?.examples.find(
    (e: Payload) => Array.isArray(e.commits) && e.commits.length > 0,
  );
  if (!example) throw new Error('no push example with commits');
  return JSON.parse(JSON.stringify(example)) as Payload;
}

const sentryIssue = {
  action: 'created',
  data: {
    issue: {
      id: '1170820242',
      title: 'ZeroDivisionError: division by zero',
      level: 'error',
      project: { slug: 'billing' },
      web_url: 'https://acme.sentry.io/issues/1170820242/',
    },
  },
  actor: { type: 'application', id: 'sentry', name: 'Sentry' },
};

describe('webhook signing secrets', () => {
  let app: ParleyApp;
  let db: DataSource;
  let owner: TestUser;
  let member: TestUser;
  let guild: TestGuild;

  /** A webhook alone in a new channel, so its messages can be counted. */
  async function freshHook(secret: string | null = SECRET): Promise<TestWebhook> {
    const ch = await http(app)
      .post(`/v1/guilds/${guild.guildId}/channels`)
      .set('Authorization', owner.token)
      .send({ name: unique('sig-').slice(0, 32) });
    expect(ch.status).toBe(201);
    const w = await createWebhook(app, owner.token, ch.body.id as string, 'Signed');
    if (secret !== null) {
      const res = await setSecret(w, secret);
      expect(res.status).toBe(200);
      expect(res.body.signing_secret_set).toBe(true);
    }
    return w;
  }
  const setSecret = (w: TestWebhook, secret: unknown) =>
    http(app)
      .patch(`/v1/webhooks/${w.id}`)
      .set('Authorization', owner.token)
      .send({ signing_secret: secret });
  const path = (w: TestWebhook, suffix: string) => `/v1/webhooks/${w.id}/${w.token}${suffix}`;
  const messages = async (w: TestWebhook) => {
    const res = await http(app)
      .get(`/v1/channels/${w.channelId}/messages`)
      .set('Authorization', owner.token);
    expect(res.status).toBe(200);
    return res.body as Payload[];
  };
  /**
   * Posts `raw` exactly as given: a string goes out as its UTF-8 bytes (supertest would
   * re-serialize an object, and even a Buffer, as JSON).
   */
  const repohost = (w: TestWebhook, raw: string, headers: Record<string, string>) => {
    const req = http(app)
      .post(path(w, '/repohost?wait=true'))
      .set('Content-Type', 'application/json')
      .set('X-GitHub-Event', 'push');
    for (const [k, v] of Object.entries(headers)) req.set(k, v);
    return req.send(raw);
  };
  const expectRefused = (res: { status: number; body: Payload }) => {
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      code: 'INVALID_WEBHOOK_SIGNATURE',
      message: expect.stringContaining('signature'),
    });
  };

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    owner = await registerUser(app);
    member = await registerUser(app);
    guild = await createGuild(app, owner.token);
    await addMember(app, guild.guildId, member.userId);
  });
  afterAll(() => app.close());

  it('answers 401 without credentials, 403 without MANAGE_WEBHOOKS', async () => {
    const w = await createWebhook(app, owner.token, guild.channelId);
    const anonymous = await http(app)
      .patch(`/v1/webhooks/${w.id}`)
      .send({ signing_secret: SECRET });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('UNAUTHORIZED');
    const forbidden = await http(app)
      .patch(`/v1/webhooks/${w.id}`)
      .set('Authorization', member.token)
      .send({ signing_secret: SECRET });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('MISSING_PERMISSIONS');
    // The token holder cannot set (nor drop) it: the field is not part of the token PATCH.
    const byToken = await http(app)
      .patch(`/v1/webhooks/${w.id}/${w.token}`)
      .send({ signing_secret: SECRET });
    expect(byToken.status).toBe(200);
    expect(byToken.body).not.toHaveProperty('signing_secret_set');
    const get = await http(app).get(`/v1/webhooks/${w.id}`).set('Authorization', owner.token);
    expect(get.body.signing_secret_set).toBe(false);
  });

  it('takes 16 to 256 characters or null; anything else is 400 INVALID_FORM_BODY', async () => {
    const w = await createWebhook(app, owner.token, guild.channelId);
    for (const bad of ['x'.repeat(15), 'x'.repeat(257), '', 1234567890123456, { a: 1 }, true]) {
      const res = await setSecret(w, bad);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_FORM_BODY');
      expect(res.body.errors.length).toBeGreaterThan(0);
      for (const e of res.body.errors) expect(e.path).toBe('signing_secret');
    }
    for (const good of ['x'.repeat(16), 'y'.repeat(256)]) {
      const res = await setSecret(w, good);
      expect(res.status).toBe(200);
      expect(res.body.signing_secret_set).toBe(true);
    }
    const cleared = await setSecret(w, null);
    expect(cleared.status).toBe(200);
    expect(cleared.body.signing_secret_set).toBe(false);
  });

  it('shows only signing_secret_set, in every manager view, and never the secret', async () => {
    const w = await freshHook(null);
    const patched = await setSecret(w, SECRET);
    const views = [
      patched,
      await http(app).get(`/v1/webhooks/${w.id}`).set('Authorization', owner.token),
      await http(app).get(`/v1/channels/${w.channelId}/webhooks`).set('Authorization', owner.token),
      await http(app).get(`/v1/guilds/${guild.guildId}/webhooks`).set('Authorization', owner.token),
      await http(app).get(`/v1/webhooks/${w.id}/${w.token}`),
    ];
    for (const res of views) {
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(SECRET);
      expect(res.text).not.toContain('Ünïcode');
      expect(res.text).not.toContain('"signing_secret"');
    }
    expect(patched.body).toMatchObject({ id: w.id, signing_secret_set: true });
    expect(views[1].body).toEqual(patched.body);
    expect(views[2].body).toContainEqual(patched.body);
    expect(views[3].body).toContainEqual(patched.body);
    // Creating shows it too (false for a new webhook).
    const created = await http(app)
      .post(`/v1/channels/${w.channelId}/webhooks`)
      .set('Authorization', owner.token)
      .send({ name: 'New' });
    expect(created.status).toBe(201);
    expect(created.body.signing_secret_set).toBe(false);

    const [row] = await db.query<Array<{ s: string }>>(
      'SELECT signing_secret_encrypted AS s FROM webhooks WHERE id = $1',
      [w.id],
    );
    expect(row.s).toMatch(/^v1\./);
    expect(await findSecretsAtRest(db, secretNeedles([SECRET]))).toEqual([]);
    // The audit log says that it changed, not what it is.
    const [audit] = await db.query<Array<{ metadata: Payload }>>(
      `SELECT metadata FROM audit_log_entries
        WHERE action = 'webhook.signing_secret.update' AND target_id = $1 ORDER BY id DESC LIMIT 1`,
      [w.id],
    );
    expect(audit.metadata).toMatchObject({ set: true });
  });

  it('posts a delivery signed over its exact bytes, refuses every other one', async () => {
    const w = await freshHook();
    const payload = pushExample();
    const raw = JSON.stringify(payload);

    const ok = await repohost(w, raw, { 'X-Hub-Signature-256': hubSignature(SECRET, raw) });
    expect(ok.status).toBe(200);
    expect(ok.body.embeds[0].title).toContain('new commit');
    expect(await messages(w)).toHaveLength(1);

    const pretty = JSON.stringify(payload, null, 2);
    const refusals: Array<Record<string, string>> = [
      { 'X-Hub-Signature-256': hubSignature(OTHER_SECRET, raw) },
      {},
      { 'X-Hub-Signature-256': hmacHex(SECRET, raw) },
      { 'X-Hub-Signature-256': `sha1=${hmacHex(SECRET, raw)}` },
      { 'X-Hub-Signature-256': `sha256=${hmacHex(SECRET, raw).slice(0, 63)}g` },
      { 'X-Hub-Signature-256': 'sha256=' },
      { 'Sentry-Hook-Signature': hmacHex(SECRET, raw) },
      // Signed over the same JSON with other whitespace: not the bytes received.
      { 'X-Hub-Signature-256': hubSignature(SECRET, pretty) },
    ];
    for (const headers of refusals) expectRefused(await repohost(w, raw, headers));
    expectRefused(await repohost(w, pretty, { 'X-Hub-Signature-256': hubSignature(SECRET, raw) }));
    expect(await messages(w)).toHaveLength(1);
  });

  it('verifies non-ASCII text over its UTF-8 bytes', async () => {
    const w = await freshHook();
    const payload = pushExample();
    payload.commits[0].message = 'Grüße, 日本語 und 🚀 — “quoted”';
    const raw = JSON.stringify(payload);
    expect(Buffer.byteLength(raw)).toBeGreaterThan(raw.length);
    const res = await repohost(w, raw, {
      'X-Hub-Signature-256': hubSignature(SECRET, Buffer.from(raw, 'utf8')),
    });
    expect(res.status).toBe(200);
    const [msg] = await messages(w);
    expect(msg.embeds[0].description).toContain('Grüße, 日本語 und 🚀 — “quoted”');
    // Signed over a latin1 rendering of the same text: refused.
    expectRefused(
      await repohost(w, raw, {
        'X-Hub-Signature-256': hubSignature(SECRET, Buffer.from(raw, 'latin1')),
      }),
    );
  });

  it('verifies form-encoded deliveries (payload=) over the raw form bytes', async () => {
    const w = await freshHook();
    const json = JSON.stringify(pushExample());
    const form = `payload=${encodeURIComponent(json)}`;
    const send = (signature: string) =>
      http(app)
        .post(path(w, '/repohost?wait=true'))
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .set('X-GitHub-Event', 'push')
        .set('X-Hub-Signature-256', signature)
        .send(form);
    const ok = await send(hubSignature(SECRET, form));
    expect(ok.status).toBe(200);
    expect(ok.body.embeds[0].title).toContain('new commit');
    // The JSON inside is not what was received.
    expectRefused(await send(hubSignature(SECRET, json)));
    expect(await messages(w)).toHaveLength(1);
  });

  it('does not use up the delivery id of a refused delivery', async () => {
    const w = await freshHook();
    const raw = JSON.stringify(pushExample());
    const delivery = unique('delivery-');
    expectRefused(
      await repohost(w, raw, {
        'X-GitHub-Delivery': delivery,
        'X-Hub-Signature-256': hubSignature(OTHER_SECRET, raw),
      }),
    );
    const redelivered = await repohost(w, raw, {
      'X-GitHub-Delivery': delivery,
      'X-Hub-Signature-256': hubSignature(SECRET, raw),
    });
    expect(redelivered.status).toBe(200);
    // Once posted, the id is used: a second correct delivery is a duplicate.
    const duplicate = await repohost(w, raw, {
      'X-GitHub-Delivery': delivery,
      'X-Hub-Signature-256': hubSignature(SECRET, raw),
    });
    expect(duplicate.status).toBe(204);
    expect(await messages(w)).toHaveLength(1);
  });

  it('checks Sentry-Hook-Signature on /errortracker', async () => {
    const w = await freshHook();
    const raw = JSON.stringify(sentryIssue);
    const send = (headers: Record<string, string>) => {
      const req = http(app)
        .post(path(w, '/errortracker?wait=true'))
        .set('Content-Type', 'application/json')
        .set('Sentry-Hook-Resource', 'issue');
      for (const [k, v] of Object.entries(headers)) req.set(k, v);
      return req.send(raw);
    };
    const ok = await send({ 'Sentry-Hook-Signature': hmacHex(SECRET, raw) });
    expect(ok.status).toBe(200);
    expect(ok.body.embeds[0].title).toContain('ZeroDivisionError');
    expectRefused(await send({}));
    expectRefused(await send({ 'Sentry-Hook-Signature': hmacHex(OTHER_SECRET, raw) }));
    expectRefused(await send({ 'Sentry-Hook-Signature': `sha256=${hmacHex(SECRET, raw)}` }));
    expectRefused(await send({ 'X-Hub-Signature-256': hubSignature(SECRET, raw) }));
    expect(await messages(w)).toHaveLength(1);
  });

  it('leaves the plain and chatcompat formats unsigned', async () => {
    const w = await freshHook();
    const plain = await http(app).post(path(w, '')).send({ content: 'plain, unsigned' });
    expect(plain.status).toBe(204);
    const chat = await http(app).post(path(w, '/chatcompat')).send({ text: 'chat, unsigned' });
    expect(chat.status).toBe(200);
    expect((await messages(w)).map((m) => m.content).sort()).toEqual([
      'chat, unsigned',
      'plain, unsigned',
    ]);
  });

  it('applies at once when set or cleared, and without a secret nothing changes', async () => {
    const w = await freshHook(null);
    const raw = JSON.stringify(pushExample());
    // Unsigned and even wrongly signed deliveries post while no secret is set.
    expect((await repohost(w, raw, {})).status).toBe(200);
    expect(
      (await repohost(w, raw, { 'X-Hub-Signature-256': hubSignature(OTHER_SECRET, raw) })).status,
    ).toBe(200);
    expect((await setSecret(w, SECRET)).status).toBe(200);
    expectRefused(await repohost(w, raw, {}));
    const cleared = await setSecret(w, null);
    expect(cleared.body.signing_secret_set).toBe(false);
    expect((await repohost(w, raw, {})).status).toBe(200);
    expect(await messages(w)).toHaveLength(3);
  });

  it('honours a secret changed behind the cache (by another instance)', async () => {
    const w = await freshHook(null);
    const raw = JSON.stringify(pushExample());
    expect((await repohost(w, raw, {})).status).toBe(200); // caches "no secret"
    const key = app.get(AppConfig).secretKey;
    await db.query('UPDATE webhooks SET signing_secret_encrypted = $2 WHERE id = $1', [
      w.id,
      encryptSecret(key, SECRET),
    ]);
    expectRefused(await repohost(w, raw, {}));
    expect(
      (await repohost(w, raw, { 'X-Hub-Signature-256': hubSignature(SECRET, raw) })).status,
    ).toBe(200);
    await db.query('UPDATE webhooks SET signing_secret_encrypted = $2 WHERE id = $1', [
      w.id,
      encryptSecret(key, OTHER_SECRET),
    ]);
    expectRefused(await repohost(w, raw, { 'X-Hub-Signature-256': hubSignature(SECRET, raw) }));
    expect(await messages(w)).toHaveLength(2);
  });

  describe('Gitea, Forgejo and Gogs', () => {
    it('posts a signed Gitea push, de-duplicates X-Gitea-Delivery, skips unknown events', async () => {
      const w = await freshHook();
      const raw = JSON.stringify(giteaPush);
      // What Gitea sends: its own event and delivery headers plus X-Hub-Signature-256.
      const gitea = (event: string, delivery: string, body = raw) =>
        http(app)
          .post(path(w, '/repohost?wait=true'))
          .set('Content-Type', 'application/json')
          .set('X-Gitea-Event', event)
          .set('X-Gitea-Delivery', delivery)
          .set('X-Hub-Signature-256', hubSignature(SECRET, body))
          .send(body);
      const delivery = unique('gitea-');
      const ok = await gitea('push', delivery);
      expect(ok.status).toBe(200);
      expect(ok.body.embeds[0]).toMatchObject({
        title: '[alice/webapp:main] 2 new commits',
        url: giteaPush.compare_url,
        author: { name: 'alice' },
      });
      expect((await gitea('push', delivery)).status).toBe(204);
      const unknown = await gitea('pull_request_approved', unique('gitea-'), '{"action":"x"}');
      expect(unknown.status).toBe(204);
      expect(unknown.text).toBe('');
      expect((await gitea('wiki', unique('gitea-'))).status).toBe(204);
      expect(await messages(w)).toHaveLength(1);
    });

    it('posts a Forgejo pull request and a Gogs issue (X-Gogs-Signature)', async () => {
      const w = await freshHook();
      const pr = JSON.stringify(forgejoPullRequest);
      const forgejo = await http(app)
        .post(path(w, '/repohost?wait=true'))
        .set('Content-Type', 'application/json')
        .set('X-Forgejo-Event', 'pull_request')
        .set('X-Forgejo-Delivery', unique('forgejo-'))
        .set('X-Hub-Signature-256', hubSignature(SECRET, pr))
        .send(pr);
      expect(forgejo.status).toBe(200);
      expect(forgejo.body.embeds[0].title).toBe(
        '[bob/tool] Pull request opened: #7 Add a --dry-run flag',
      );
      const issue = JSON.stringify(gogsIssues);
      const gogs = (signature: string) =>
        http(app)
          .post(path(w, '/repohost?wait=true'))
          .set('Content-Type', 'application/json')
          .set('X-Gogs-Event', 'issues')
          .set('X-Gogs-Delivery', unique('gogs-'))
          .set('X-Gogs-Signature', signature)
          .send(issue);
      expectRefused(await gogs(hmacHex(OTHER_SECRET, issue)));
      const ok = await gogs(hmacHex(SECRET, issue));
      expect(ok.status).toBe(200);
      expect(ok.body.embeds[0].url).toBe('https://gogs.example.net/dave/daemon/issues/3');
      expect(await messages(w)).toHaveLength(2);
    });
  });
});

describe('webhook signature failures and the rate limit', () => {
  let app: ParleyApp;
  beforeAll(async () => {
    app = await createTestApp({
      env: { RATE_LIMIT_OVERRIDES: `${RELAXED_LIMITS},webhook:repohost=3/1m` },
    });
  });
  afterAll(() => app.close());

  it("counts refused deliveries in the webhook's bucket", async () => {
    const owner = await registerUser(app);
    const g = await createGuild(app, owner.token);
    const w = await createWebhook(app, owner.token, g.channelId);
    const patched = await http(app)
      .patch(`/v1/webhooks/${w.id}`)
      .set('Authorization', owner.token)
      .send({ signing_secret: SECRET });
    expect(patched.status).toBe(200);
    const raw = JSON.stringify(pushExample());
    const send = (secret: string) =>
      http(app)
        .post(`/v1/webhooks/${w.id}/${w.token}/repohost`)
        .set('Content-Type', 'application/json')
        .set('X-GitHub-Event', 'push')
        .set('X-Hub-Signature-256', hubSignature(secret, raw))
        .send(raw);
    const first = await send(OTHER_SECRET);
    expect(first.status).toBe(401);
    expect(first.headers['x-ratelimit-limit']).toBe('3');
    expect(first.headers['x-ratelimit-remaining']).toBe('2');
    const second = await send(OTHER_SECRET);
    expect(second.status).toBe(401);
    expect(second.headers['x-ratelimit-remaining']).toBe('1');
    const signed = await send(SECRET);
    expect(signed.status).toBe(204);
    expect(signed.headers['x-ratelimit-remaining']).toBe('0');
    const limited = await send(SECRET);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'RATE_LIMITED', global: false });
    expect(limited.headers['x-ratelimit-bucket']).toBe('webhook:repohost');
  });
});
