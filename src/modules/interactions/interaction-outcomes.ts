import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { UserDispatchEvents } from '../../infra/events/realtime-event';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import { INTERACTION_TOKEN_TTL_MS } from './interaction-credentials';

/** The application's first answer is due within this (Discord's 3 seconds). */
export const ANSWER_DEADLINE_MS = 3_000;
/** Every instance looks for overdue interactions this often (an instance that died left some). */
const SWEEP_MS = 1_000;
/** Interactions older than their token are deleted this often (their ephemeral messages with them). */
const CLEANUP_MS = 60_000;

interface Outcome {
  id: string;
  user_id: string;
  nonce: string | null;
}

/**
 * What becomes of an interaction, told to the user who invoked it: INTERACTION_SUCCESS once the
 * application answered, INTERACTION_FAILURE when it did not within 3 seconds — exactly one of
 * them whatever the number of instances, since each is the event of a conditional update of the
 * interaction's row (answered: `responded_at`, failed: `failed_at`, each only while neither is
 * set) written in that update's transaction. The instance that created an interaction watches its
 * deadline; every instance sweeps for overdue ones every second, so a crash delays a failure by
 * at most that.
 */
@Injectable()
export class InteractionOutcomes implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Interactions');
  private readonly timers = new Set<NodeJS.Timeout>();
  private sweeper: NodeJS.Timeout | null = null;
  private lastCleanup = 0;
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly events: RealtimeEvents,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onApplicationBootstrap(): void {
    // The operator CLI boots without an HTTP server: it answers no interactions.
    if (!(this.adapterHost.httpAdapter as unknown)) return;
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.sweeper) clearInterval(this.sweeper);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** INTERACTION_SUCCESS, in the transaction that recorded the answer. */
  async answered(m: EntityManager, outcome: Outcome): Promise<void> {
    await this.events.publish(m, [event(UserDispatchEvents.InteractionSuccess, outcome)]);
  }

  /** Fails the interaction when its deadline passes unanswered. */
  watch(id: string): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.fail(id, false).catch((err: Error) => this.logger.warn(err.message));
    }, ANSWER_DEADLINE_MS + 20);
    timer.unref();
    this.timers.add(timer);
  }

  /**
   * Fails `id` now (its endpoint refused it: `now`) or once overdue; false when it was already
   * answered or failed.
   */
  async fail(id: string, now: boolean): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const [rows] = await m.query<[Outcome[], number]>(
        `UPDATE interactions SET failed_at = now()
          WHERE id = $1 AND responded_at IS NULL AND failed_at IS NULL
            AND ($2 OR created_at <= now() - $3 * interval '1 millisecond')
          RETURNING id::text AS id, user_id::text AS user_id, nonce`,
        [id, now, ANSWER_DEADLINE_MS],
      );
      if (rows.length === 0) return false;
      await this.events.publish(m, [event(UserDispatchEvents.InteractionFailure, rows[0])]);
      return true;
    });
  }

  /** Fails every overdue interaction (any instance's), and now and then deletes expired ones. */
  private async sweep(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.db.transaction(async (m) => {
        const [rows] = await m.query<[Outcome[], number]>(
          `UPDATE interactions SET failed_at = now()
            WHERE id IN (SELECT id FROM interactions
                          WHERE responded_at IS NULL AND failed_at IS NULL
                            AND created_at <= now() - $1 * interval '1 millisecond'
                          ORDER BY created_at LIMIT 500 FOR UPDATE SKIP LOCKED)
            RETURNING id::text AS id, user_id::text AS user_id, nonce`,
          [ANSWER_DEADLINE_MS + 500],
        );
        if (rows.length > 0) {
          await this.events.publish(
            m,
            rows.map((r) => event(UserDispatchEvents.InteractionFailure, r)),
          );
        }
      });
      if (Date.now() - this.lastCleanup > CLEANUP_MS) {
        this.lastCleanup = Date.now();
        await this.db.query(
          `DELETE FROM interactions WHERE created_at < now() - $1 * interval '1 millisecond'`,
          [INTERACTION_TOKEN_TTL_MS + 60_000],
        );
      }
    } catch (err) {
      this.logger.warn(`interaction sweep failed: ${(err as Error).message}`);
    }
  }
}

function event(t: UserDispatchEvents, o: Outcome) {
  const d: Record<string, string> = { id: o.id };
  if (o.nonce !== null) d.nonce = o.nonce;
  return { t, userId: o.user_id, d };
}
