import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
} from 'typeorm';
import { EventRelay } from './event-relay';
import type { RealtimeEvent } from './realtime-event';

// One statement per publish, whatever the number of events.
const INSERT_EVENTS = `
  INSERT INTO realtime_events (type, guild_id, channel_id, user_id, author_id, mention_ids, data)
  SELECT t, g, c, u, a, CASE WHEN m IS NULL THEN NULL ELSE string_to_array(m, ',')::bigint[] END, d
    FROM unnest($1::varchar[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::text[],
                $7::text[]) AS v(t, g, c, u, a, m, d)`;

/** The columns of `events` as INSERT_EVENTS takes them. */
function outboxParameters(events: RealtimeEvent[]): unknown[][] {
  const cols: unknown[][] = [[], [], [], [], [], [], []];
  for (const e of events) {
    cols[0].push(e.t);
    cols[1].push(e.guildId ?? null);
    cols[2].push(e.channelId ?? null);
    cols[3].push(e.userId ?? null);
    cols[4].push(e.authorId ?? null);
    cols[5].push(e.mentionIds && e.mentionIds.length > 0 ? e.mentionIds.join(',') : null);
    cols[6].push(JSON.stringify(e.d));
  }
  return cols;
}

/**
 * Where the aggregates publish their realtime events (DESIGN.md §4 "Gateway", ARCHITECTURE.md
 * §7): into the outbox table, in the transaction of the change — so an event exists exactly when
 * its change committed, whatever happens to this process after the commit. Once the outermost
 * transaction commits, the relay is woken to number the events and hand them to every instance.
 */
@Injectable()
export class RealtimeEvents implements OnModuleInit {
  /** Transactions that wrote events: the relay is woken when they commit. */
  private readonly wrote = new WeakSet<QueryRunner>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly relay: EventRelay,
  ) {}

  onModuleInit(): void {
    const subscriber: EntitySubscriberInterface = {
      afterTransactionCommit: (event: TransactionCommitEvent) => this.committed(event.queryRunner),
    };
    this.dataSource.subscribers.push(subscriber);
  }

  /**
   * Writes `events` in `manager`'s transaction, which must be open: an event written outside the
   * transaction of its change could exist without the change, or the change without it.
   */
  async publish(manager: EntityManager, events: RealtimeEvent[]): Promise<void> {
    if (events.length === 0) return;
    const runner = manager.queryRunner;
    if (!runner?.isTransactionActive) {
      throw new Error('realtime events are written in the transaction of their change');
    }
    await manager.query(INSERT_EVENTS, outboxParameters(events));
    this.wrote.add(runner);
  }

  /** Events were written by a statement of the caller's (a single-statement write): wake the relay. */
  written(): void {
    this.relay.wake();
  }

  private committed(runner: QueryRunner): void {
    // A savepoint released: the outermost transaction is still open.
    if (runner.isTransactionActive || !this.wrote.has(runner)) return;
    this.wrote.delete(runner);
    this.relay.wake();
  }
}
