import { DataSource } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { createTestApp, http, unique } from '../helpers/app';
import { registerUser } from '../helpers/factories';
import { createGuild, createWebhook, type TestWebhook } from '../helpers/guild-factories';
import { pushExample } from '../helpers/messages';
import { TcpProxy } from '../helpers/tcp-proxy';

/**
 * An ambiguous commit: the database committed the webhook batch's statement, and the connection
 * dropped before its answer arrived. The app cannot know whether it committed; it runs the batch
 * again with the same ids (ARCHITECTURE.md §7, "Idempotent writes"). The sender gets its message
 * once — never a 500 for a stored message — and the message, its event and a repository host's
 * delivery id exist once each.
 */
describe('webhook messages: an ambiguous commit neither answers 500 nor stores twice', () => {
  let proxy: TcpProxy;
  let app: ParleyApp;
  let db: DataSource;
  let hook: TestWebhook;

  beforeAll(async () => {
    const url = new URL(process.env.PARLEY_TEST_DATABASE_URL!);
    proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
    app = await createTestApp({ env: { DATABASE_URL: proxy.rewrite(url.toString()) } });
    db = app.get(DataSource);
    const owner = await registerUser(app);
    const g = await createGuild(app, owner.token);
    hook = await createWebhook(app, owner.token, g.channelId, 'ambiguous');
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
  });

  const countWhere = async (sql: string, params: unknown[]): Promise<number> =>
    Number((await db.query<Array<{ n: string }>>(sql, params))[0].n);

  it('answers 200 with the message the lost commit stored; one row, one MESSAGE_CREATE', async () => {
    const content = unique('lost answer ');
    proxy.dropAnswerTo(Buffer.from('parley_insert_webhook_messages_v4'));
    const res = await http(app)
      .post(`/v1/webhooks/${hook.id}/${hook.token}?wait=true`)
      .send({ content });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ content, webhook_id: hook.id });
    expect(proxy.dropped).toBe(1);
    expect(
      await countWhere('SELECT count(*) AS n FROM messages WHERE content = $1', [content]),
    ).toBe(1);
    expect(
      await countWhere(
        `SELECT count(*) AS n FROM realtime_events
          WHERE type = 'MESSAGE_CREATE' AND (data::jsonb)->>'id' = $1`,
        [res.body.id],
      ),
    ).toBe(1);
  });

  it('a repository host delivery: its id recorded with the message, the redelivery posts nothing', async () => {
    const delivery = `ambiguous-${unique()}`;
    const send = () =>
      http(app)
        .post(`/v1/webhooks/${hook.id}/${hook.token}/repohost?wait=true`)
        .set('X-GitHub-Event', 'push')
        .set('X-GitHub-Delivery', delivery)
        .send(pushExample());
    proxy.dropAnswerTo(Buffer.from('parley_insert_webhook_messages_v4'));
    const first = await send();
    expect(first.status).toBe(200);
    expect(proxy.dropped).toBe(2);
    // The sender redelivers (GitHub's "Redeliver"): the id is known, nothing more is posted.
    const again = await send();
    expect(again.status).toBe(204);
    expect(
      await countWhere('SELECT count(*) AS n FROM messages WHERE webhook_id = $1 AND id >= $2', [
        hook.id,
        first.body.id,
      ]),
    ).toBe(1);
    expect(
      await countWhere(
        'SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = $1 AND delivery_id = $2',
        [hook.id, delivery],
      ),
    ).toBe(1);
  });
});
