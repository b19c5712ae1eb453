import { DataSource } from 'typeorm';
import { PreparedStatement } from '../../database/prepared';
import type { EventName, LoggedEvent } from './realtime-event';

/** Numbered events stay this long: gaps are filled and resumed sessions replayed from them. */
export const EVENT_RETENTION_MS = 10 * 60_000;
/** Where the relay announces the head of the log (PostgreSQL NOTIFY; the payload is the position). */
export const EVENTS_CHANNEL = 'parley_events';
/** Ends an announced head the transport did not carry: readers read it from PostgreSQL at once. */
export const UNSENT_MARK = '!';
/** Where an instance without a shared transport wakes the relay of another (PostgreSQL NOTIFY). */
export const RELAY_WAKE_CHANNEL = 'parley_events_wake';

/** Anything that runs a query: a pg Client or Pool, a TypeORM DataSource or EntityManager. */
export interface Queryable {
  query<T = unknown>(sql: string, params?: unknown[]): Promise<T>;
}

interface EventRow {
  position: string;
  id: string;
  type: string;
  guild_id: string | null;
  channel_id: string | null;
  user_id: string | null;
  author_id: string | null;
  mention_ids: string[] | null;
  data: string;
}

const columns = (t: string) => `${t}.position::text AS position, ${t}.id::text AS id, ${t}.type,
  ${t}.guild_id::text AS guild_id, ${t}.channel_id::text AS channel_id, ${t}.user_id::text AS user_id,
  ${t}.author_id::text AS author_id, ${t}.mention_ids::text[] AS mention_ids, ${t}.data`;

// The relay's one statement (ARCHITECTURE.md §7): the committed events nobody numbered yet, in
// the order they were written, get the next positions of the log — gap-free, since the head row
// is advanced by exactly their number in the same statement, which also serialises relays. Rows
// of transactions still open are invisible and numbered by a later pass; such a transaction was
// concurrent with the ones numbered now, so either order is one the database could have
// committed in (causally related changes are written, and numbered, in order).
const NUMBER_PENDING = `
  WITH pending AS (
    SELECT id FROM realtime_events WHERE position IS NULL ORDER BY id LIMIT $1 FOR UPDATE
  ), head AS (
    UPDATE realtime_event_log SET last_position = last_position + (SELECT count(*) FROM pending)
     WHERE id = 1 AND EXISTS (SELECT 1 FROM pending)
    RETURNING last_position - (SELECT count(*) FROM pending) AS base
  ), numbered AS (
    SELECT p.id, h.base + row_number() OVER (ORDER BY p.id) AS position
      FROM pending p CROSS JOIN head h
  )
  UPDATE realtime_events e SET position = n.position FROM numbered n WHERE e.id = n.id
  RETURNING ${columns('e')}`;

const READ = `SELECT ${columns('r')} FROM realtime_events r
  WHERE r.position > $1 AND r.position <= $2 ORDER BY r.position LIMIT $3`;

const HEAD_SQL = 'SELECT last_position::text AS p FROM realtime_event_log WHERE id = 1';
// Every identify and resume reads the head: prepared once per pooled connection.
const HEAD = new PreparedStatement<{ p: string }>('parley_event_log_head', HEAD_SQL);
// The head, and the newest event up to $1 committed but not numbered yet (null: none), read in
// one snapshot: when none is, every event committed before the statement is at or below it.
const COMMITTED_HEAD = new PreparedStatement<{ p: string; pending: string | null }>(
  'parley_event_log_committed_head',
  `SELECT last_position::text AS p,
          (SELECT max(id)::text FROM realtime_events WHERE position IS NULL AND id <= $1) AS pending
     FROM realtime_event_log WHERE id = 1`,
);
/** Larger than any event id: the first probe of `committedHead` counts every pending event. */
const ANY_ID = '9223372036854775807';

/** The outbox and the numbered log in PostgreSQL (tables `realtime_events`, `realtime_event_log`). */
export const EventStore = {
  /** Numbers up to `limit` pending events; returns them in log order. */
  async numberPending(db: Queryable, limit: number): Promise<LoggedEvent[]> {
    const rows = await db.query<EventRow[]>(NUMBER_PENDING, [limit]);
    return rows.map(toLogged).sort((a, b) => a.position - b.position);
  },

  /** The events after `after` up to `upTo` (inclusive), at most `limit`, in log order. */
  async read(db: Queryable, after: number, upTo: number, limit: number): Promise<LoggedEvent[]> {
    const rows = await db.query<EventRow[]>(READ, [after, upTo, limit]);
    return rows.map(toLogged);
  },

  /** The last position handed out. */
  async head(db: Queryable | DataSource): Promise<number> {
    const rows =
      db instanceof DataSource
        ? await HEAD.run(db, [])
        : await db.query<Array<{ p: string }>>(HEAD_SQL);
    return Number(rows[0]?.p ?? 0);
  },

  /**
   * The head once every event committed before the call is numbered (the relay numbers them;
   * this waits for it, up to `timeoutMs`, then answers the head as it is).
   */
  async committedHead(db: DataSource, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    let bound = ANY_ID;
    for (;;) {
      const [row] = await COMMITTED_HEAD.run(db, [bound]);
      if (!row) return 0;
      if (row.pending === null || Date.now() >= deadline) return Number(row.p);
      bound = row.pending;
      await new Promise((r) => setTimeout(r, 5));
    }
  },

  /** The id of the newest event written and committed (0: none kept). */
  async lastWritten(db: Queryable): Promise<string> {
    const rows = await db.query<Array<{ id: string }>>(
      'SELECT COALESCE(max(id), 0)::text AS id FROM realtime_events',
    );
    return rows[0]?.id ?? '0';
  },

  /** Whether events up to id `last` still wait to be numbered. */
  async pendingUpTo(db: Queryable, last: string): Promise<boolean> {
    const rows = await db.query<unknown[]>(
      'SELECT 1 FROM realtime_events WHERE position IS NULL AND id <= $1 LIMIT 1',
      [last],
    );
    return rows.length > 0;
  },

  /** Deletes numbered events older than `retentionMs`; returns how many. */
  async trim(db: Queryable, retentionMs: number): Promise<number> {
    // Positions follow commit order, so the old rows are the lowest positions: the position index
    // is walked from the bottom up to the first row still young (it reads what goes, and one
    // more), and everything below it goes. No index on age, which every event would pay for.
    const rows = await db.query<Array<{ n: number }>>(
      `WITH young AS (
         SELECT position FROM realtime_events
          WHERE position IS NOT NULL AND created_at >= now() - $1 * interval '1 millisecond'
          ORDER BY position LIMIT 1
       ), gone AS (
         DELETE FROM realtime_events
          WHERE position IS NOT NULL
            AND position < COALESCE((SELECT position FROM young),
                                    (SELECT last_position + 1 FROM realtime_event_log WHERE id = 1))
         RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [retentionMs],
    );
    return rows[0]?.n ?? 0;
  },
};

function toLogged(r: EventRow): LoggedEvent {
  return {
    position: Number(r.position),
    id: r.id,
    t: r.type as EventName,
    guildId: r.guild_id,
    channelId: r.channel_id,
    userId: r.user_id,
    authorId: r.author_id,
    mentionIds: r.mention_ids,
    data: r.data,
  };
}
