import { Injectable, Logger } from '@nestjs/common';
import type { Checkpoint, GatewaySession } from './gateway-session';
import { SessionRegistry } from './session-registry';
import { SessionStore } from './session-store';

/** Checkpoints of changed sessions are written this often… */
export const CHECKPOINT_MS = 1_000;
/** …and every session's, to keep it from expiring, this often. */
const KEEPALIVE_MS = 60_000;

/**
 * Writes the sessions' checkpoints to the store (session-store.ts) — the changed ones about once a
 * second, every one now and then so they do not expire — and lets go of the sessions another
 * instance claimed meanwhile (their clients resumed there).
 */
@Injectable()
export class Checkpointer {
  private readonly logger = new Logger('Gateway');
  private lastKeepAlive = Date.now();
  private writing = false;
  /** A write failed (the store was away): the next one writes every session. */
  private failed = false;

  constructor(
    private readonly registry: SessionRegistry,
    private readonly store: SessionStore,
  ) {}

  async run(now = Date.now()): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    const all = this.failed || now - this.lastKeepAlive >= KEEPALIVE_MS;
    if (all) this.lastKeepAlive = now;
    const points = new Map<string, Checkpoint>();
    const sessions = new Map<string, GatewaySession>();
    this.registry.forEachSession((session) => {
      const point = session.takeCheckpoint(all);
      if (!point) return;
      points.set(session.id, point);
      sessions.set(session.id, session);
    });
    try {
      const { lost, missing } = await this.store.checkpoint(this.registry.instanceId, points);
      for (const id of lost) {
        const session = sessions.get(id);
        if (session) this.registry.abandon(session);
      }
      // Still ours, but the store forgot it (Redis restarted empty): written again, whole.
      for (const id of missing) {
        const session = sessions.get(id);
        if (!session || !this.registry.has(session)) continue;
        await this.store.create(session.record(), this.registry.instanceId);
      }
      this.failed = false;
    } catch (err) {
      for (const [id, point] of points) sessions.get(id)?.checkpointFailed(point);
      this.failed = true;
      this.logger.warn(`gateway checkpoints not written: ${(err as Error).message}`);
    } finally {
      this.writing = false;
    }
  }
}
