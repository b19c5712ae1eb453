import { Client } from 'pg';
import { EventStore } from '../../src/infra/events/event-store';
import { isolatedDatabase } from '../helpers/app';

/**
 * The retention of the numbered log (EventStore.trim): numbered events older than the window
 * go, the young ones and the pending ones stay. On a database of its own (it writes the log).
 */
describe('event log: trimming what is past the retention window', () => {
  let db: { url: string; drop(): Promise<void> };
  let client: Client;
  const retentionMs = 10 * 60_000;

  beforeAll(async () => {
    db = await isolatedDatabase();
    client = new Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  /** Events written `agesMin` minutes ago, numbered in that order (null: left pending). */
  async function write(agesMin: Array<number | null>): Promise<void> {
    await client.query('TRUNCATE realtime_events');
    let position = 0;
    for (const age of agesMin) {
      const numbered = age !== null;
      await client.query(
        `INSERT INTO realtime_events (type, position, data, created_at)
         VALUES ('MESSAGE_CREATE', $1, '{}', now() - $2 * interval '1 minute')`,
        [numbered ? ++position : null, age ?? 0],
      );
    }
    await client.query('UPDATE realtime_event_log SET last_position = $1 WHERE id = 1', [position]);
  }

  const kept = async () =>
    (
      await client.query<{ position: string | null }>(
        'SELECT position::text FROM realtime_events ORDER BY id',
      )
    ).rows.map((r) => (r.position === null ? null : Number(r.position)));

  const db$ = {
    query: async <T>(sql: string, p?: unknown[]) => (await client.query(sql, p)).rows as T,
  };

  it('deletes the numbered events past the window and keeps the young and the pending ones', async () => {
    await write([30, 20, 11, null, 9, 1, null]);
    expect(await EventStore.trim(db$, retentionMs)).toBe(3);
    expect(await kept()).toEqual([null, 4, 5, null]);
    // Nothing more to trim.
    expect(await EventStore.trim(db$, retentionMs)).toBe(0);
  });

  it('deletes every numbered event when all are past the window', async () => {
    await write([40, 30, null, 20]);
    expect(await EventStore.trim(db$, retentionMs)).toBe(3);
    expect(await kept()).toEqual([null]);
  });

  it('deletes nothing while every numbered event is young', async () => {
    await write([5, 4, 3]);
    expect(await EventStore.trim(db$, retentionMs)).toBe(0);
    expect(await kept()).toEqual([1, 2, 3]);
  });
});
