import { Injectable, Logger } from '@nestjs/common';
import { EventLog } from '../../../infra/events/event-log';
import { Metrics } from '../../../infra/metrics/metrics';
import { RESUME_CLOSE_CODES, ResumeDto } from '../dto/resume.dto';
import { validatePayload } from '../dto/validate-payload';
import { GatewayAuthenticator } from '../gateway-authenticator';
import type { GatewayConnection } from '../gateway-connection';
import { GatewayDispatcher } from '../gateway-dispatcher';
import { GatewayLimits } from '../gateway-limits';
import { GatewaySession, type SessionIdentity } from '../gateway-session';
import { CloseCode, GatewayDispatchEvents as E, Op } from '../protocol';
import { SessionRegistry } from '../session-registry';
import { SessionStore } from '../session-store';

/**
 * Op 6 Resume: the session continues on this connection with the frames the client missed — a
 * session this instance holds, or one taken over from the store (its instance died, or the
 * client reconnected elsewhere) by replaying the event log from its checkpoint. The session is
 * bound to the token presented now (a second token of the same user becomes the one re-checked).
 */
@Injectable()
export class ResumeHandler {
  private readonly logger = new Logger('Gateway');

  constructor(
    private readonly auth: GatewayAuthenticator,
    private readonly limits: GatewayLimits,
    private readonly registry: SessionRegistry,
    private readonly dispatcher: GatewayDispatcher,
    private readonly store: SessionStore,
    private readonly log: EventLog,
    private readonly metrics: Metrics,
  ) {}

  async handle(conn: GatewayConnection, d: unknown): Promise<void> {
    const checked = validatePayload(ResumeDto, d, RESUME_CLOSE_CODES);
    if (!checked.ok) return conn.close(checked.close);
    const { token, session_id: id } = checked.value;
    const seq = checked.value.seq ?? 0;
    const identity = await this.auth.authenticate(token);
    if (!conn.open) return;
    if (!identity) {
      await this.limits.failed(conn.ip);
      return conn.close(CloseCode.AuthenticationFailed);
    }
    // What was committed before the client came back is replayed before RESUMED.
    await this.log.syncCommitted();
    const held = this.registry.get(id);
    const session = held ?? (await this.takeOver(id, identity));
    if (!conn.open) return;
    if (!session || session.identity.userId !== identity.userId || session.starting) {
      return this.refuse(conn, id, session ? 'not this user’s, or still starting' : 'unknown');
    }
    if (seq > session.seq) return conn.close(CloseCode.InvalidSeq);
    const frames = session.framesAfter(seq);
    if (!frames) {
      this.registry.drop(session);
      return this.refuse(conn, id, `frames after seq ${seq} no longer kept`);
    }
    this.metrics.gatewayResume(held ? 'resumed' : 'taken_over');
    this.logger.debug({
      msg: held ? 'gateway session resumed' : 'gateway session taken over',
      session: id,
      seq,
      sessionSeq: session.seq,
      frames: frames.length,
    });
    session.rebind(identity);
    this.registry.attach(session, conn);
    for (const f of frames) conn.sendDispatch(f.s, f.t, f.d);
    // RESUMED repeats the last number instead of taking a new one: every numbered frame after
    // READY is then an event of the log, so a takeover from any checkpoint (written up to a
    // second late) numbers the frames as this instance did.
    conn.sendDispatch(session.seq, E.Resumed, '{}');
    session.markCheckpoint();
  }

  /** Op 9: the client identifies again (a log line says why, without the token). */
  private refuse(conn: GatewayConnection, id: string, why: string): void {
    this.metrics.gatewayResume('invalid');
    this.logger.log({
      msg: `gateway resume refused: ${why}`,
      session: id.slice(0, 64),
      ip: conn.ip,
    });
    conn.sendOp(Op.InvalidSession, false);
  }

  /**
   * A session this instance does not hold, from the store: claimed, then rebuilt by replaying
   * the log from its checkpoint. Null when there is no such session of this user, or its events
   * are no longer kept.
   */
  private async takeOver(id: string, identity: SessionIdentity): Promise<GatewaySession | null> {
    if (!/^[0-9a-f]{32}$/.test(id)) return null;
    const record = await this.store.claim(id, this.registry.instanceId, identity.userId);
    if (!record || record.bot !== identity.bot) return null;
    const session = new GatewaySession(
      id,
      identity,
      record.intents,
      record.shard,
      record.largeThreshold,
    );
    session.startAt(record.pos, record.seq);
    for (const [guildId, canView] of record.guilds) session.follow(guildId, canView);
    session.detach();
    this.dispatcher.register(session);
    const events = await this.log.range(record.pos).catch(() => null);
    if (!events) {
      this.dispatcher.unregister(session);
      await this.store.drop(id).catch(() => undefined);
      return null;
    }
    this.logger.debug({
      msg: 'gateway session replayed from its checkpoint',
      session: id,
      seq: record.seq,
      pos: record.pos,
      events: events.length,
      head: events.at(-1)?.position ?? record.pos,
    });
    this.dispatcher.replay(session, events);
    await session.idle();
    this.registry.adopt(session);
    return session;
  }
}
