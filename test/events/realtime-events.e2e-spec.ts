import { DataSource } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { EventLog } from '../../src/infra/events/event-log';
import { EventRelay } from '../../src/infra/events/event-relay';
import {
  EventName,
  type LoggedEvent,
  type RealtimeEvent,
} from '../../src/infra/events/realtime-event';
import { RealtimeEvents } from '../../src/infra/events/realtime-events';
import { isolatedDatabase, createTestApp } from '../helpers/app';

let counter = 0;
/** A guild id no other suite uses, so the listener sees only this test's events. */
const freshGuildId = () =>
  String((BigInt(Date.now()) << 22n) | BigInt(++counter * 97 + (process.pid % 97)));

const eventOf = (guildId: string, n: number): RealtimeEvent => ({
  t: EventName.MessageDelete,
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

const ids = (events: LoggedEvent[]) => events.map((e) => (JSON.parse(e.data) as { id: string }).id);
const settle = (ms = 300) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits for a delivery. Generous: the relay may be another test process's (one leader per
 * database), whose events reach this instance through PostgreSQL's NOTIFY and a read — seconds
 * on a loaded 2-core machine running two test workers and other instances.
 */
async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const start = Date.now();
  while (!check() && Date.now() - start < ms) await settle(10);
}

describe('realtime events are written with their change and delivered after commit', () => {
  let app: ParleyApp;
  let db: DataSource;
  let events: RealtimeEvents;

  let own: { url: string; drop(): Promise<void> };

  // A database of its own: its relay is this app's (on the shared test database it may be another
  // process's, busy with its own suite).
  beforeAll(async () => {
    own = await isolatedDatabase();
    app = await createTestApp({ env: { DATABASE_URL: own.url } });
    db = app.get(DataSource);
    events = app.get(RealtimeEvents);
  });
  afterAll(async () => {
    await app.close();
    await own.drop();
  });

  it('holds events until the commit, then delivers them once, in order, at consecutive positions', async () => {
    const guildId = freshGuildId();
    const { seen, stop } = listen(app, guildId);
    try {
      await db.transaction(async (manager) => {
        await events.publish(manager, [eventOf(guildId, 1)]);
        await manager.query('SELECT 1');
        await events.publish(manager, [eventOf(guildId, 2), eventOf(guildId, 3)]);
        await settle();
        expect(seen).toEqual([]);
      });
      await until(() => seen.length === 3);
      await settle(100);
      expect(ids(seen)).toEqual(['1', '2', '3']);
      expect(seen.map((e) => e.position)).toEqual([
        seen[0].position,
        seen[0].position + 1,
        seen[0].position + 2,
      ]);
      expect(seen[0]).toMatchObject({ t: 'MESSAGE_DELETE', guildId, channelId: '1' });
      expect(new Set(seen.map((e) => e.id)).size).toBe(3);
    } finally {
      stop();
    }
  });

  it('drops the events of a transaction that rolls back, and of a savepoint rolled back', async () => {
    const guildId = freshGuildId();
    const { seen, stop } = listen(app, guildId);
    try {
      await expect(
        db.transaction(async (manager) => {
          await events.publish(manager, [eventOf(guildId, 1)]);
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      await db.transaction(async (manager) => {
        await events.publish(manager, [eventOf(guildId, 2)]);
        await expect(
          manager.transaction(async (inner) => {
            await events.publish(inner, [eventOf(guildId, 3)]);
            throw new Error('inner refused');
          }),
        ).rejects.toThrow('inner refused');
        await manager.transaction(async (inner) => {
          await events.publish(inner, [eventOf(guildId, 4)]);
        });
      });
      await until(() => seen.length >= 2);
      await settle();
      expect(ids(seen)).toEqual(['2', '4']);
    } finally {
      stop();
    }
  });

  it('refuses to write an event outside a transaction (it could outlive or miss its change)', async () => {
    const guildId = freshGuildId();
    await expect(events.publish(db.manager, [eventOf(guildId, 1)])).rejects.toThrow(
      /transaction of their change/,
    );
  });

  it('keeps a committed event in PostgreSQL until the relay numbers it, then delivers it', async () => {
    const guildId = freshGuildId();
    const { seen, stop } = listen(app, guildId);
    try {
      // Written straight into the outbox and committed, with nobody told: as if the process that
      // committed it died before waking the relay. The relay's own polling finds it.
      await db.query(
        `INSERT INTO realtime_events (type, guild_id, channel_id, data) VALUES ('MESSAGE_DELETE', $1, 1, $2)`,
        [guildId, JSON.stringify({ id: '7', channel_id: '1', guild_id: guildId })],
      );
      await until(() => seen.length === 1);
      expect(ids(seen)).toEqual(['7']);
      const [row] = await db.query<Array<{ position: string | null }>>(
        'SELECT position::text AS position FROM realtime_events WHERE guild_id = $1',
        [guildId],
      );
      expect(Number(row.position)).toBe(seen[0].position);
    } finally {
      stop();
    }
  });
});

describe('with REDIS_URL, every instance reads the same log', () => {
  let a: ParleyApp;
  let b: ParleyApp;

  beforeAll(async () => {
    const env = { REDIS_URL: process.env.TEST_REDIS_URL };
    [a, b] = await Promise.all([createTestApp({ env }), createTestApp({ env })]);
  });
  afterAll(() => Promise.all([a?.close(), b?.close()]));

  it('delivers what either instance commits to both, in the same order at the same positions', async () => {
    expect(a.get(EventLog).shared).toBe(true);
    // One relay for the database (an advisory lock); the other instance stands by.
    await until(() => a.get(EventRelay).isLeader || b.get(EventRelay).isLeader);
    expect(a.get(EventRelay).isLeader && b.get(EventRelay).isLeader).toBe(false);
    const guildId = freshGuildId();
    const onA = listen(a, guildId);
    const onB = listen(b, guildId);
    try {
      await a.get(DataSource).transaction(async (manager) => {
        await a.get(RealtimeEvents).publish(manager, [eventOf(guildId, 1), eventOf(guildId, 2)]);
      });
      await b.get(DataSource).transaction(async (manager) => {
        await b.get(RealtimeEvents).publish(manager, [eventOf(guildId, 3)]);
      });
      await until(() => onA.seen.length === 3 && onB.seen.length === 3);
      expect(ids(onA.seen)).toEqual(['1', '2', '3']);
      expect(onB.seen).toEqual(onA.seen);
    } finally {
      onA.stop();
      onB.stop();
    }
  });
});
