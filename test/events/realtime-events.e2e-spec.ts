import { DataSource } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { EventLog } from '../../src/infra/events/event-log';
import type { LoggedEvent, RealtimeEvent } from '../../src/infra/events/realtime-event';
import { RealtimeEvents } from '../../src/infra/events/realtime-events';
import { RedisEventLog } from '../../src/infra/events/redis-event-log';
import { createTestApp, unique } from '../helpers/app';

/** An event of a guild id no other suite uses, so the listener sees only this test's events. */
const eventOf = (guildId: string, n: number): RealtimeEvent => ({
  t: 'MESSAGE_DELETE',
  guildId,
  channelId: '1',
  d: { id: String(n), channel_id: '1', guild_id: guildId },
});

function listen(app: ParleyApp, guildId: string) {
  const seen: LoggedEvent[] = [];
  const stop = app.get(EventLog).subscribe((events) => {
    for (const e of events) if (e.guildId === guildId) seen.push(e);
  });
  return { seen, stop };
}

const settle = (ms = 300) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean): Promise<void> {
  const start = Date.now();
  while (!check() && Date.now() - start < 5_000) await settle(10);
}

describe('realtime events are published after commit', () => {
  let app: ParleyApp;
  let db: DataSource;
  let events: RealtimeEvents;

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    events = app.get(RealtimeEvents);
  });
  afterAll(() => app.close());

  it('holds events until the commit, then delivers them once, in order', async () => {
    const guildId = unique('g');
    const { seen, stop } = listen(app, guildId);
    try {
      await db.transaction(async (manager) => {
        events.publish(manager, [eventOf(guildId, 1)]);
        await manager.query('SELECT 1');
        events.publish(manager, [eventOf(guildId, 2), eventOf(guildId, 3)]);
        await settle();
        expect(seen).toEqual([]);
      });
      await until(() => seen.length === 3);
      await settle(100);
      expect(seen.map((e) => e.d.id)).toEqual(['1', '2', '3']);
      expect(new Set(seen.map((e) => e.id)).size).toBe(3);
    } finally {
      stop();
    }
  });

  it('drops the events of a transaction that rolls back, and of a savepoint rolled back', async () => {
    const guildId = unique('g');
    const { seen, stop } = listen(app, guildId);
    try {
      await expect(
        db.transaction(async (manager) => {
          events.publish(manager, [eventOf(guildId, 1)]);
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      await db.transaction(async (manager) => {
        events.publish(manager, [eventOf(guildId, 2)]);
        await expect(
          manager.transaction(async (inner) => {
            events.publish(inner, [eventOf(guildId, 3)]);
            throw new Error('inner refused');
          }),
        ).rejects.toThrow('inner refused');
        await manager.transaction(async (inner) => {
          events.publish(inner, [eventOf(guildId, 4)]);
        });
      });
      await until(() => seen.length >= 2);
      await settle();
      expect(seen.map((e) => e.d.id)).toEqual(['2', '4']);
    } finally {
      stop();
    }
  });

  it('publishes at once without a transaction', async () => {
    const guildId = unique('g');
    const { seen, stop } = listen(app, guildId);
    try {
      events.publish(undefined, [eventOf(guildId, 1)]);
      events.publish(db.manager, [eventOf(guildId, 2)]);
      await until(() => seen.length === 2);
      expect(seen.map((e) => e.d.id)).toEqual(['1', '2']);
    } finally {
      stop();
    }
  });
});

describe('with REDIS_URL, the log is a Redis stream every instance reads', () => {
  let a: ParleyApp;
  let b: ParleyApp;

  beforeAll(async () => {
    const env = { REDIS_URL: process.env.TEST_REDIS_URL };
    [a, b] = await Promise.all([createTestApp({ env }), createTestApp({ env })]);
  });
  afterAll(() => Promise.all([a?.close(), b?.close()]));

  it('delivers what one instance commits to both, in the same order with the same ids', async () => {
    expect(a.get(EventLog)).toBeInstanceOf(RedisEventLog);
    const guildId = unique('g');
    const onA = listen(a, guildId);
    const onB = listen(b, guildId);
    try {
      // The readers start from the stream's end when they subscribe.
      await settle(500);
      await a.get(DataSource).transaction(async (manager) => {
        a.get(RealtimeEvents).publish(manager, [eventOf(guildId, 1), eventOf(guildId, 2)]);
      });
      b.get(RealtimeEvents).publish(undefined, [eventOf(guildId, 3)]);
      await until(() => onA.seen.length === 3 && onB.seen.length === 3);
      expect(onA.seen.map((e) => e.d)).toEqual([1, 2, 3].map((n) => eventOf(guildId, n).d));
      expect(onB.seen).toEqual(onA.seen);
      expect(onA.seen[0]).toMatchObject({ t: 'MESSAGE_DELETE', guildId, channelId: '1' });
      expect(onA.seen[0].id).toMatch(/^\d+-\d+$/);
    } finally {
      onA.stop();
      onB.stop();
    }
  });
});
