import type { ParleyApp } from '../src/app.setup';
import { DataSource } from 'typeorm';
import { createTestApp, http } from './helpers/app';
import { registerUser } from './helpers/factories';
import { createGuild, createWebhook } from './helpers/guild-factories';

/**
 * Webhook messages are written with group commit (concurrent posts share one INSERT). Every
 * acknowledged message is stored, each caller gets its own message back, one bad row fails alone,
 * and a deleted webhook's posts in the same batch are refused.
 */
describe('webhook execute: group commit', () => {
  let app: ParleyApp;
  let db: DataSource;

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
  });
  afterAll(() => app.close());

  it('stores every acknowledged message of 60 concurrent posts, each answered with its own', async () => {
    const owner = await registerUser(app);
    const guild = await createGuild(app, owner.token);
    const [a, b] = await Promise.all([
      createWebhook(app, owner.token, guild.channelId, 'A'),
      createWebhook(app, owner.token, guild.channelId, 'B'),
    ]);
    const posts = Array.from({ length: 60 }, (_, i) => {
      const w = i % 2 ? a : b;
      return http(app)
        .post(`/v1/webhooks/${w.id}/${w.token}?wait=true`)
        .send({ content: `message ${i}`, username: `sender ${i}` });
    });
    const res = await Promise.all(posts);
    expect(res.map((r) => r.status)).toEqual(Array(60).fill(200));
    res.forEach((r, i) => {
      expect(r.body).toMatchObject({
        content: `message ${i}`,
        webhook_id: i % 2 ? a.id : b.id,
        channel_id: guild.channelId,
        author: { username: `sender ${i}`, bot: true },
      });
    });
    const ids = res.map((r) => (r.body as { id: string }).id);
    expect(new Set(ids).size).toBe(60);
    const stored = await db.query<Array<{ id: string; content: string }>>(
      'SELECT id::text AS id, content FROM messages WHERE id = ANY($1::bigint[])',
      [ids],
    );
    expect(stored).toHaveLength(60);
    const byId = new Map(stored.map((m) => [m.id, m.content]));
    ids.forEach((id, i) => expect(byId.get(id)).toBe(`message ${i}`));
  });

  it('fails a row the database refuses alone; the others in its batch are stored', async () => {
    const owner = await registerUser(app);
    const guild = await createGuild(app, owner.token);
    const w = await createWebhook(app, owner.token, guild.channelId);
    const bodies = Array.from({ length: 20 }, (_, i) =>
      // PostgreSQL text cannot hold U+0000: that row is refused by the database itself.
      i === 7 ? { text: 'bad \u0000 row' } : { text: `ok ${i}` },
    );
    const res = await Promise.all(
      bodies.map((body) =>
        http(app).post(`/v1/webhooks/${w.id}/${w.token}/chatcompat?wait=true`).send(body),
      ),
    );
    res.forEach((r, i) => {
      if (i === 7) {
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ code: expect.any(String), message: expect.any(String) });
      } else {
        expect(r.status).toBe(200);
        expect(r.body).toMatchObject({ content: `ok ${i}` });
      }
    });
    const [{ n }] = await db.query<Array<{ n: number }>>(
      'SELECT count(*)::int AS n FROM messages WHERE webhook_id = $1',
      [w.id],
    );
    expect(n).toBe(19);
  });

  it('refuses posts to a webhook deleted meanwhile, even when batched with good ones', async () => {
    const owner = await registerUser(app);
    const guild = await createGuild(app, owner.token);
    const [keep, gone] = await Promise.all([
      createWebhook(app, owner.token, guild.channelId, 'Keep'),
      createWebhook(app, owner.token, guild.channelId, 'Gone'),
    ]);
    // Warm this instance's token cache for `gone`, then delete the row behind its back.
    expect(
      (await http(app).post(`/v1/webhooks/${gone.id}/${gone.token}`).send({ content: 'x' })).status,
    ).toBe(204);
    await db.query('DELETE FROM webhooks WHERE id = $1', [gone.id]);
    const res = await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const w = i % 2 ? keep : gone;
        return http(app)
          .post(`/v1/webhooks/${w.id}/${w.token}?wait=true`)
          .send({ content: `${i}` });
      }),
    );
    res.forEach((r, i) => {
      if (i % 2) expect(r.status).toBe(200);
      else expect(r.body).toMatchObject({ code: 'UNKNOWN_WEBHOOK' });
    });
  });
});
