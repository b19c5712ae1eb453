import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type WebSocket from 'ws';
import { Metrics } from '../../infra/metrics/metrics';
import { PresenceService } from './presence.service';
import { GatewayConnection, type Compression, type ConnectionOwner } from './gateway-connection';
import { GatewayDispatcher } from './gateway-dispatcher';
import { RESUME_WINDOW_MS, type GatewaySession } from './gateway-session';
import { CloseCode, Op, RESUMABLE_CLOSES } from './protocol';
import { SessionStore } from './session-store';

/** A client that has not sent a heartbeat for the interval plus this share of it is gone (4009). */
const HEARTBEAT_GRACE = 0.5;

/**
 * The one owner of the gateway's state on this instance: its open connections (and how many come
 * from each client address) and its sessions (and how many each user has). Everything that adds,
 * attaches, detaches or ends one goes through here, so the indexes — here, in the dispatcher and
 * in the session store — never disagree.
 */
@Injectable()
export class SessionRegistry implements ConnectionOwner {
  private readonly logger = new Logger('Gateway');
  /** Who owns a session in the shared store: this process. */
  readonly instanceId = randomBytes(8).toString('hex');
  private readonly connections = new Set<GatewayConnection>();
  private readonly perAddress = new Map<string, number>();
  private readonly sessions = new Map<string, GatewaySession>();
  private readonly perUser = new Map<string, number>();

  constructor(
    private readonly dispatcher: GatewayDispatcher,
    private readonly store: SessionStore,
    private readonly metrics: Metrics,
    private readonly presences: PresenceService,
  ) {}

  // --- connections ----------------------------------------------------------------------------

  get connectionCount(): number {
    return this.connections.size;
  }

  connectionsFrom(ip: string): number {
    return this.perAddress.get(ip) ?? 0;
  }

  open(ws: WebSocket, ip: string, compression: Compression): GatewayConnection {
    const conn = new GatewayConnection(ws, ip, compression, this);
    this.connections.add(conn);
    this.perAddress.set(ip, this.connectionsFrom(ip) + 1);
    this.metrics.gatewayConnections(1);
    return conn;
  }

  /** The socket closed: a normal close ends its session (Discord's rule), others keep it for resume. */
  closed(conn: GatewayConnection, code: number): void {
    conn.closedByPeer();
    if (this.connections.delete(conn)) {
      this.metrics.gatewayConnections(-1);
      const left = this.connectionsFrom(conn.ip) - 1;
      if (left > 0) this.perAddress.set(conn.ip, left);
      else this.perAddress.delete(conn.ip);
    }
    this.metrics.gatewayClose(code);
    const session = conn.session;
    conn.session = null;
    if (!session || session.connection !== conn) return;
    session.detach();
    if (
      code === 1000 ||
      code === 1001 ||
      (code >= 4000 && code < 4100 && !RESUMABLE_CLOSES.has(code))
    ) {
      this.drop(session);
    }
  }

  forEachConnection(fn: (conn: GatewayConnection) => void): void {
    for (const conn of this.connections) fn(conn);
  }

  // ConnectionOwner
  slowConsumer(conn: GatewayConnection): void {
    this.logger.warn('closing a gateway connection that does not keep up (resumable)');
    conn.close(CloseCode.UnknownError);
    conn.ws.terminate();
  }

  dispatched(): void {
    this.metrics.gatewayDispatches(1);
  }

  // --- sessions -------------------------------------------------------------------------------

  get(id: string): GatewaySession | undefined {
    return this.sessions.get(id);
  }

  has(session: GatewaySession): boolean {
    return this.sessions.get(session.id) === session;
  }

  sessionCountOf(userId: string): number {
    return this.perUser.get(userId) ?? 0;
  }

  /** The oldest of the user's sessions whose connection is gone, if any. */
  oldestDisconnectedOf(userId: string): GatewaySession | null {
    let oldest: GatewaySession | null = null;
    for (const s of this.sessions.values()) {
      if (s.identity.userId !== userId || s.disconnectedAt === null) continue;
      if (!oldest || s.disconnectedAt < oldest.disconnectedAt!) oldest = s;
    }
    return oldest;
  }

  forEachSession(fn: (session: GatewaySession) => void): void {
    for (const session of [...this.sessions.values()]) fn(session);
  }

  /** A new session goes live on `conn` (identify); it is counted, revocable and resumable from now. */
  live(session: GatewaySession, conn: GatewayConnection): void {
    this.add(session);
    this.attach(session, conn);
  }

  /** A session taken over from another instance, still without a connection. */
  adopt(session: GatewaySession): void {
    this.add(session);
  }

  /** `conn` carries `session` from now on; a connection still attached gives way (resumable). */
  attach(session: GatewaySession, conn: GatewayConnection): void {
    const previous = session.connection;
    if (previous && previous !== conn) {
      previous.session = null;
      previous.close(CloseCode.UnknownError);
    }
    session.attach(conn);
    conn.session = session;
  }

  /** Ends a session here and in the store. */
  drop(session: GatewaySession): void {
    if (!this.forget(session)) return;
    this.store.drop(session.id).catch(() => undefined);
    void this.presences.ended(session);
  }

  /** Another instance owns the session now: this copy goes, its connection is cut. */
  abandon(session: GatewaySession): void {
    if (!this.forget(session)) return;
    session.connection?.ws.terminate();
  }

  /** Ends the session, closing its connection with `code` (4004: revoked, 4014: intents). */
  revoke(session: GatewaySession, code: CloseCode): void {
    const conn = session.connection;
    this.drop(session);
    if (conn) {
      conn.session = null;
      conn.close(code);
    }
  }

  /**
   * Every session ends and its client is told to identify again (op 9, not resumable): events
   * it needed are gone (EventLog.onGap).
   */
  invalidateAll(): void {
    if (this.sessions.size === 0) return;
    this.logger.warn(
      `realtime events were lost: ${this.sessions.size} gateway session(s) must identify again`,
    );
    for (const session of [...this.sessions.values()]) {
      const conn = session.connection;
      this.drop(session);
      if (conn) {
        conn.session = null;
        conn.sendOp(Op.InvalidSession, false);
      }
    }
  }

  /** Heartbeat timeouts (4009), connections that never identified (4003), expired sessions. */
  sweep(heartbeatIntervalMs: number, identifyTimeoutMs: number, now = Date.now()): void {
    const silence = heartbeatIntervalMs * (1 + HEARTBEAT_GRACE);
    for (const conn of this.connections) {
      if (!conn.open) continue;
      if (now - conn.lastHeartbeat > silence) conn.close(CloseCode.SessionTimedOut);
      else if (!conn.session && !conn.authenticating && now - conn.openedAt > identifyTimeoutMs) {
        conn.close(CloseCode.NotAuthenticated);
      }
    }
    for (const session of this.sessions.values()) {
      const gone = session.disconnectedAt;
      if (gone !== null && now - gone > RESUME_WINDOW_MS) this.drop(session);
    }
  }

  /** Closes every connection at once (shutdown). */
  terminateAll(): void {
    for (const conn of this.connections) conn.ws.terminate();
    for (const session of this.sessions.values()) this.dispatcher.unregister(session);
  }

  /** What this instance holds (diagnostics and the leak checks of the robustness tests). */
  stats(): {
    connections: number;
    sessions: number;
    addresses: number;
    users: number;
    routing: ReturnType<GatewayDispatcher['stats']>;
  } {
    return {
      connections: this.connections.size,
      sessions: this.sessions.size,
      addresses: this.perAddress.size,
      users: this.perUser.size,
      routing: this.dispatcher.stats(),
    };
  }

  private add(session: GatewaySession): void {
    if (this.sessions.has(session.id)) return;
    this.sessions.set(session.id, session);
    const userId = session.identity.userId;
    this.perUser.set(userId, this.sessionCountOf(userId) + 1);
  }

  private forget(session: GatewaySession): boolean {
    this.dispatcher.unregister(session);
    if (this.sessions.get(session.id) !== session) return false;
    this.sessions.delete(session.id);
    const userId = session.identity.userId;
    const left = this.sessionCountOf(userId) - 1;
    if (left > 0) this.perUser.set(userId, left);
    else this.perUser.delete(userId);
    return true;
  }
}
