import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';
import { EventLog } from './event-log';
import type { RealtimeEvent } from './realtime-event';

interface Held {
  /** The transaction depth it was published at: a savepoint rolled back drops what it held. */
  depth: number;
  events: RealtimeEvent[];
}

// TypeORM counts nested transactions (savepoints) in a protected field; read, never written.
function depthOf(runner: QueryRunner): number {
  return (runner as unknown as { transactionDepth: number }).transactionDepth;
}

/**
 * Where the aggregates publish their realtime events (DESIGN.md §4 "Gateway"): after the
 * transaction that made the change commits, never for one that rolls back. A write made in a
 * transaction publishes through its EntityManager; the events are held on its QueryRunner
 * until TypeORM reports the outermost commit (a rollback drops them, a savepoint rolled back drops
 * those published inside it). A write outside a transaction is committed when its statement
 * returns: it publishes at once.
 */
@Injectable()
export class RealtimeEvents implements OnModuleInit {
  private readonly logger = new Logger('RealtimeEvents');
  private readonly held = new WeakMap<QueryRunner, Held[]>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly log: EventLog,
  ) {}

  onModuleInit(): void {
    const subscriber: EntitySubscriberInterface = {
      afterTransactionCommit: (event: TransactionCommitEvent) => this.committed(event.queryRunner),
      afterTransactionRollback: (event: TransactionRollbackEvent) =>
        this.rolledBack(event.queryRunner),
    };
    this.dataSource.subscribers.push(subscriber);
  }

  /**
   * Publishes `events` once `manager`'s transaction commits, or now when `manager` has none open
   * (or is not given: the change is committed already).
   */
  publish(manager: EntityManager | undefined, events: RealtimeEvent[]): void {
    if (events.length === 0) return;
    const runner = manager?.queryRunner;
    if (!runner?.isTransactionActive) {
      this.send(events);
      return;
    }
    const held = this.held.get(runner) ?? [];
    held.push({ depth: depthOf(runner), events });
    this.held.set(runner, held);
  }

  private committed(runner: QueryRunner): void {
    // A savepoint released: its events now belong to the enclosing transaction.
    if (runner.isTransactionActive) {
      const depth = depthOf(runner);
      for (const h of this.held.get(runner) ?? []) h.depth = Math.min(h.depth, depth);
      return;
    }
    const held = this.held.get(runner);
    if (!held) return;
    this.held.delete(runner);
    this.send(held.flatMap((h) => h.events));
  }

  private rolledBack(runner: QueryRunner): void {
    const held = this.held.get(runner);
    if (!held) return;
    if (!runner.isTransactionActive) {
      this.held.delete(runner);
      return;
    }
    const depth = depthOf(runner);
    this.held.set(
      runner,
      held.filter((h) => h.depth <= depth),
    );
  }

  private send(events: RealtimeEvent[]): void {
    this.log.append(events).catch((err: Error) => {
      this.logger.warn(`${events.length} realtime event(s) not published: ${err.message}`);
      this.log.appendFailed();
    });
  }
}
