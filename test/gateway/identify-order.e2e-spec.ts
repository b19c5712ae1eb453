import { DataSource, type QueryRunner } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { serverPort } from '../helpers/ports';
import { createTestApp, http } from '../helpers/app';
import { registerUser } from '../helpers/factories';
import { GatewayClient } from '../helpers/gateway-client';
import { addMember, createGuild } from '../helpers/guild-factories';

describe('gateway identify: a change committed before it is in the snapshot, not sent again', () => {
  let app: ParleyApp;
  let url: string;
  let holder: QueryRunner | null = null;
  const open: GatewayClient[] = [];

  beforeAll(async () => {
    const port = await serverPort();
    app = await createTestApp({ env: { GATEWAY_URL: `ws://127.0.0.1:${port}/gateway` } });
    await app.listen(port, '127.0.0.1');
    url = `ws://127.0.0.1:${port}/gateway`;
  });
  afterAll(async () => {
    for (const c of open) c.ws.terminate();
    if (holder?.isTransactionActive) await holder.rollbackTransaction();
    await holder?.release();
    await app.close();
  });

  it('starts after everything committed before it is numbered (the relay held back meanwhile)', async () => {
    const [owner, joiner] = await Promise.all([registerUser(app), registerUser(app)]);
    const g = await createGuild(app, owner.token);
    // The relay numbers events by advancing the log's head row: holding that row keeps the
    // membership's GUILD_MEMBER_ADD committed but unnumbered while the identify starts.
    holder = app.get(DataSource).createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    await holder.query('SELECT 1 FROM realtime_event_log WHERE id = 1 FOR UPDATE');
    await addMember(app, g.guildId, joiner.userId);

    const c = await GatewayClient.connect(url, {});
    open.push(c);
    await c.next((f) => f.op === 10);
    c.identify(owner.token);
    await new Promise((r) => setTimeout(r, 300));
    await holder.rollbackTransaction();

    await c.dispatch('READY');
    const created = await c.dispatch('GUILD_CREATE');
    const members = created.d.members as Array<{ user: { id: string } }>;
    expect(members.map((m) => m.user.id).sort()).toEqual([owner.userId, joiner.userId].sort());
    // A message after it: whatever the session is sent before it was sent after the snapshot.
    const posted = await http(app)
      .post(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', owner.token)
      .send({ content: 'after the snapshot' })
      .expect(201);
    const message = await c.dispatch('MESSAGE_CREATE');
    expect(message.d.id).toBe(posted.body.id);
    expect(c.dispatches().map((f) => f.t)).toEqual(['READY', 'GUILD_CREATE', 'MESSAGE_CREATE']);
  });
});
