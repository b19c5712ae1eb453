import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import proxyaddr from 'proxy-addr';
import { DataSource } from 'typeorm';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { ParsedCredential } from '../../common/auth/authorization-header';
import type { Caller } from '../../common/auth/caller';
import { CredentialResolvers } from '../../common/auth/credential-resolvers';
import { trustProxyOf } from '../../common/http/platform/http-platform';
import { DrainState } from '../../common/lifecycle/drain-state';
import { AppConfig } from '../../config/app.config';
import { CHANGES_CHANNEL, DatabaseNotifications } from '../../database/notifications';
import { BANS_CHANNEL, IpBanGate } from '../bans/ip-ban-gate';
import { GuildSnapshots } from '../guilds/guild-snapshots';
import { UserEntity } from '../users/user.entity';
import { toUserPartial } from '../users/user.mapper';
import { GatewayConnection } from './gateway-connection';
import { GatewayDispatcher } from './gateway-dispatcher';
import { GatewaySession, RESUME_WINDOW_MS, type SessionIdentity } from './gateway-session';
import { EventLog } from '../../infra/events/event-log';
import { GATEWAY_SESSION_STORE } from './gateway.tokens';
import { type Checkpoint, RedisSessionStore } from './session-store';
import { IdentifyLimits } from './identify-limits';
import {
  CLIENT_FRAME_WINDOW_MS,
  CLIENT_FRAMES_PER_WINDOW,
  CloseCode,
  DEFAULT_LARGE_THRESHOLD,
  disallowedIntents,
  GATEWAY_VERSION,
  Intents,
  KNOWN_INTENTS,
  MAX_CLIENT_FRAME_BYTES,
  MAX_GUILDS_PER_SESSION,
  MAX_LARGE_THRESHOLD,
  Op,
  RESUMABLE_CLOSES,
  shardOf,
  SUPPORTED_VERSIONS,
} from './protocol';
import { Metrics } from '../../infra/metrics/metrics';

export const GATEWAY_PATH = '/gateway';
/** A client that has not sent a heartbeat for the interval plus this share of it is gone (4009). */
const HEARTBEAT_GRACE = 0.5;
const SWEEP_MS = 2_000;
/** After op 7 Reconnect on shutdown, connections still open are closed (resumable) after this. */
const RECONNECT_GRACE_MS = 1_000;
/** Checkpoints of changed sessions are written this often (shared store only)… */
const CHECKPOINT_MS = 1_000;
/** …and every session's, to keep it from expiring, this often. */
const KEEPALIVE_MS = 60_000;

interface ConnectionState {
  conn: GatewayConnection;
  session: GatewaySession | null;
  /** Identify or resume in progress. */
  authenticating: boolean;
  lastHeartbeat: number;
  windowStart: number;
  framesInWindow: number;
}

/**
 * The real-time gateway (Discord Gateway v10, DESIGN.md §4 "Gateway") on the API's own port: an
 * HTTP upgrade at /gateway on the server the HTTP adapter exposes (Express or Fastify alike),
 * handled by `ws`. This class speaks the protocol — Hello, heartbeats, identify, resume, the
 * close codes — and keeps the sessions; GatewayDispatcher routes the committed events to them.
 */
@Injectable()
export class GatewayServer implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Gateway');
  private readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    // Frames over 4,096 bytes are refused with 4002 by onFrame; far larger ones never reach it.
    maxPayload: 64 * 1024,
    clientTracking: false,
  });
  private readonly connections = new Set<ConnectionState>();
  private readonly sessions = new Map<string, GatewaySession>();
  /** Which hops of X-Forwarded-For to believe (TRUST_PROXY, as the HTTP adapters read it). */
  private readonly trust: ((addr: string, i: number) => boolean) | null;
  private sweep: NodeJS.Timeout | null = null;
  private checkpoints: NodeJS.Timeout | null = null;
  private stopGapWatch: (() => void) | null = null;
  private lastKeepAlive = Date.now();
  private server: Server | null = null;
  private stopping = false;
  /** Who owns a session in the shared store: this process. */
  readonly instanceId = randomBytes(8).toString('hex');

  constructor(
    private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly resolvers: CredentialResolvers,
    private readonly dispatcher: GatewayDispatcher,
    private readonly snapshots: GuildSnapshots,
    private readonly limits: IdentifyLimits,
    private readonly notifications: DatabaseNotifications,
    private readonly bans: IpBanGate,
    private readonly drain: DrainState,
    private readonly log: EventLog,
    @Inject(GATEWAY_SESSION_STORE) private readonly store: RedisSessionStore | null,
    private readonly metrics: Metrics,
  ) {
    const trust = trustProxyOf(config.trustProxy);
    this.trust =
      trust === false
        ? null
        : trust === true
          ? () => true
          : typeof trust === 'number'
            ? (_addr, i) => i < trust
            : proxyaddr.compile(trust.split(',').map((t) => t.trim()));
  }

  onModuleInit(): void {
    this.notifications.listen(CHANGES_CHANNEL, {
      onNotification: (tag) => this.credentialChanged(tag),
      onListening: () => undefined,
    });
    this.notifications.listen(BANS_CHANNEL, {
      onNotification: () => this.bansChanged(),
      onListening: () => undefined,
    });
    this.drain.onStart(() => this.reconnectAll());
  }

  onApplicationBootstrap(): void {
    this.stopGapWatch = this.log.onGap(() => this.invalidateAll());
    // The CLI (migrations, the OpenAPI document) boots the app without an HTTP server.
    const adapter = this.adapterHost.httpAdapter as typeof this.adapterHost.httpAdapter | null;
    if (!adapter) return;
    this.server = adapter.getHttpServer() as Server;
    this.server.on('upgrade', this.onUpgrade);
    this.sweep = setInterval(() => this.sweepConnections(), SWEEP_MS);
    this.sweep.unref();
    if (this.store) {
      this.checkpoints = setInterval(() => void this.writeCheckpoints(), CHECKPOINT_MS);
      this.checkpoints.unref();
    }
  }

  onApplicationShutdown(): void {
    this.stopping = true;
    this.stopGapWatch?.();
    this.server?.off('upgrade', this.onUpgrade);
    if (this.sweep) clearInterval(this.sweep);
    if (this.checkpoints) clearInterval(this.checkpoints);
    for (const state of this.connections) state.conn.ws.terminate();
    this.connections.clear();
    for (const session of this.sessions.values()) this.dispatcher.unregister(session);
    this.sessions.clear();
  }

  /** What this instance holds (diagnostics and the leak checks of the robustness tests). */
  stats(): {
    connections: number;
    sessions: number;
    routing: ReturnType<GatewayDispatcher['stats']>;
  } {
    return {
      connections: this.connections.size,
      sessions: this.sessions.size,
      routing: this.dispatcher.stats(),
    };
  }

  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://gateway');
    if (url.pathname !== GATEWAY_PATH) return refuse(socket, 404, 'Not Found');
    if (this.stopping || this.drain.draining) return refuse(socket, 503, 'Service Unavailable');
    const max = this.config.gateway.maxConnections;
    if (max > 0 && this.connections.size >= max) return refuse(socket, 503, 'Service Unavailable');
    const ip = this.clientIp(req);
    this.bans.check(ip, (refusal) => {
      if (refusal) return refuse(socket, 403, 'Forbidden');
      this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, ip, url));
    });
  };

  private onConnection(ws: WebSocket, ip: string | undefined, url: URL): void {
    const compressParam = url.searchParams.get('compress');
    const compress = compressParam === 'zlib-stream' && this.config.gateway.compression;
    const now = Date.now();
    const state: ConnectionState = {
      conn: new GatewayConnection(
        ws,
        ip,
        compress,
        () => this.slowConsumer(state),
        () => this.metrics.gatewayDispatches(1),
      ),
      session: null,
      authenticating: false,
      lastHeartbeat: now,
      windowStart: now,
      framesInWindow: 0,
    };
    this.connections.add(state);
    this.metrics.gatewayConnections(1);
    ws.on('error', () => undefined);
    ws.on('close', (code: number) => this.onClose(state, code));
    const version = url.searchParams.get('v');
    if (version !== null && !SUPPORTED_VERSIONS.has(version)) {
      return state.conn.close(CloseCode.InvalidApiVersion);
    }
    const encoding = url.searchParams.get('encoding');
    if (
      (encoding !== null && encoding !== 'json') ||
      (compressParam !== null && compressParam !== 'zlib-stream')
    ) {
      return state.conn.close(CloseCode.DecodeError);
    }
    ws.on('message', (data: RawData, isBinary: boolean) => this.onFrame(state, data, isBinary));
    state.conn.sendOp(Op.Hello, { heartbeat_interval: this.config.gateway.heartbeatIntervalMs });
  }

  private onFrame(state: ConnectionState, data: RawData, isBinary: boolean): void {
    if (!state.conn.open) return;
    const now = Date.now();
    if (now - state.windowStart >= CLIENT_FRAME_WINDOW_MS) {
      state.windowStart = now;
      state.framesInWindow = 0;
    }
    state.framesInWindow += 1;
    if (state.framesInWindow > CLIENT_FRAMES_PER_WINDOW) {
      return state.conn.close(CloseCode.RateLimited);
    }
    const buf = Array.isArray(data)
      ? Buffer.concat(data)
      : Buffer.isBuffer(data)
        ? data
        : Buffer.from(data);
    if (isBinary || buf.length > MAX_CLIENT_FRAME_BYTES) {
      return state.conn.close(CloseCode.DecodeError);
    }
    let frame: { op?: unknown; d?: unknown };
    try {
      frame = JSON.parse(buf.toString('utf8')) as typeof frame;
    } catch {
      return state.conn.close(CloseCode.DecodeError);
    }
    if (frame === null || typeof frame !== 'object' || typeof frame.op !== 'number') {
      return state.conn.close(CloseCode.DecodeError);
    }
    switch (frame.op) {
      case Op.Heartbeat:
        state.lastHeartbeat = now;
        if (typeof frame.d === 'number' && state.session) state.session.acknowledged(frame.d);
        state.conn.sendOp(Op.HeartbeatAck, null);
        return;
      case Op.Identify:
      case Op.Resume:
        if (state.session || state.authenticating) {
          return state.conn.close(CloseCode.AlreadyAuthenticated);
        }
        state.authenticating = true;
        (frame.op === Op.Identify ? this.identify(state, frame.d) : this.resume(state, frame.d))
          .catch((err: unknown) => {
            this.logger.error(
              `gateway ${frame.op === Op.Identify ? 'identify' : 'resume'} failed: ${(err as Error).message}`,
            );
            state.conn.close(CloseCode.UnknownError);
          })
          .finally(() => (state.authenticating = false));
        return;
      case Op.PresenceUpdate:
      case Op.VoiceStateUpdate:
      case Op.RequestGuildMembers:
        // Accepted and ignored: Parley has no presences, voice or member chunks.
        if (!state.session) return state.conn.close(CloseCode.NotAuthenticated);
        return;
      default:
        return state.conn.close(CloseCode.UnknownOpcode);
    }
  }

  private async identify(state: ConnectionState, raw: unknown): Promise<void> {
    const d = (raw ?? {}) as Record<string, unknown>;
    const conn = state.conn;
    if (typeof d.token !== 'string' || d.token.length === 0 || d.token.length > 512) {
      return conn.close(CloseCode.AuthenticationFailed);
    }
    const intents = d.intents;
    if (
      intents !== undefined &&
      (!Number.isSafeInteger(intents) ||
        (intents as number) < 0 ||
        ((intents as number) & ~KNOWN_INTENTS) !== 0)
    ) {
      return conn.close(CloseCode.InvalidIntents);
    }
    const shard = parseShard(d.shard);
    if (!shard) return conn.close(CloseCode.InvalidShard);
    const largeThreshold =
      Number.isSafeInteger(d.large_threshold) &&
      (d.large_threshold as number) >= 50 &&
      (d.large_threshold as number) <= MAX_LARGE_THRESHOLD
        ? (d.large_threshold as number)
        : DEFAULT_LARGE_THRESHOLD;

    const identity = await this.authenticate(d.token);
    if (!conn.open) return;
    if (!identity) return conn.close(CloseCode.AuthenticationFailed);
    if (identity.bot) {
      if (intents === undefined) return conn.close(CloseCode.InvalidIntents);
      const flags = await this.applicationFlags(identity.applicationId!);
      if (disallowedIntents(intents as number, flags) !== 0) {
        return conn.close(CloseCode.DisallowedIntents);
      }
      const allowed = await this.limits.start(identity.applicationId!);
      if (!conn.open) return;
      if (!allowed) return conn.sendOp(Op.InvalidSession, false);
    }

    const session = new GatewaySession(
      randomBytes(16).toString('hex'),
      identity,
      identity.bot ? (intents as number) : ((intents as number | undefined) ?? KNOWN_INTENTS),
      shard,
      largeThreshold,
    );
    // Routed from now on (queued until READY), so nothing committed while the guilds are being
    // read is missed.
    session.seenPos = session.settledPos = this.dispatcher.lastRouted;
    this.dispatcher.register(session);
    try {
      const [guilds, user] = await Promise.all([
        this.snapshots.forUser(identity.userId, {
          members: session.wants(Intents.GUILD_MEMBERS),
          largeThreshold,
          limit: MAX_GUILDS_PER_SESSION + 1,
        }),
        this.dataSource.getRepository(UserEntity).findOneBy({ id: identity.userId }),
      ]);
      if (!conn.open || !user) {
        this.dispatcher.unregister(session);
        if (!user) conn.close(CloseCode.AuthenticationFailed);
        return;
      }
      if (guilds.length > MAX_GUILDS_PER_SESSION && shard[1] === 1) {
        this.dispatcher.unregister(session);
        return conn.close(CloseCode.ShardingRequired);
      }
      const mine = guilds.filter((g) => shardOf(g.guildId, shard[1]) === shard[0]);
      for (const g of mine) session.guilds.set(g.guildId, { canView: g.canView });
      session.connection = conn;
      state.session = session;
      this.sessions.set(session.id, session);

      const ready: Record<string, unknown> = {
        v: GATEWAY_VERSION,
        user: {
          ...toUserPartial(user),
          bot: user.bot,
          verified: user.bot ? true : user.emailVerified,
          mfa_enabled: user.mfaEnabled,
          email: user.bot ? null : user.email,
        },
        guilds: mine.map((g) => ({ id: g.guildId, unavailable: true })),
        session_id: session.id,
        session_type: 'normal',
        resume_gateway_url: this.config.gateway.url,
        shard,
        private_channels: [],
        relationships: [],
        presences: [],
        guild_join_requests: [],
        user_settings: {},
        geo_ordered_rtc_regions: [],
      };
      if (identity.bot) {
        ready.application = {
          id: identity.applicationId,
          flags: await this.applicationFlags(identity.applicationId!),
        };
      }
      const creates = session.wants(Intents.GUILDS)
        ? mine.map((g) => JSON.stringify(g.create))
        : [];
      // Resumable elsewhere from the start: READY and its GUILD_CREATEs are not in the log.
      session.checkpoint = { seq: 1 + creates.length, pos: session.settledPos, guilds: null };
      await this.store
        ?.create(
          {
            id: session.id,
            userId: identity.userId,
            bot: identity.bot,
            applicationId: identity.applicationId,
            intents: session.intents,
            shard,
            largeThreshold,
            seq: session.checkpoint.seq,
            pos: session.checkpoint.pos,
            guilds: mine.map((g) => [g.guildId, g.canView]),
          },
          this.instanceId,
        )
        .catch((err: Error) => this.logger.warn(`gateway session not shared: ${err.message}`));
      session.dispatch('READY', JSON.stringify(ready), true);
      for (const json of creates) session.dispatch('GUILD_CREATE', json, true);
      this.dispatcher.started(session);
    } catch (err) {
      this.dispatcher.unregister(session);
      throw err;
    }
  }

  private async resume(state: ConnectionState, raw: unknown): Promise<void> {
    const d = (raw ?? {}) as Record<string, unknown>;
    const conn = state.conn;
    if (typeof d.token !== 'string' || typeof d.session_id !== 'string') {
      return conn.close(CloseCode.DecodeError);
    }
    const seq = d.seq === null || d.seq === undefined ? 0 : d.seq;
    if (!Number.isSafeInteger(seq) || (seq as number) < 0) return conn.close(CloseCode.DecodeError);
    const identity = await this.authenticate(d.token);
    if (!conn.open) return;
    if (!identity) return conn.close(CloseCode.AuthenticationFailed);
    const held = this.sessions.get(d.session_id);
    const session = held ?? (await this.takeOver(d.session_id, identity));
    if (!conn.open) return;
    if (!session || session.identity.userId !== identity.userId || session.starting) {
      this.metrics.gatewayResume('invalid');
      return conn.sendOp(Op.InvalidSession, false);
    }
    if ((seq as number) > session.seq) return conn.close(CloseCode.InvalidSeq);
    const frames = session.framesAfter(seq as number);
    if (!frames) {
      this.dropSession(session);
      this.metrics.gatewayResume('invalid');
      return conn.sendOp(Op.InvalidSession, false);
    }
    this.metrics.gatewayResume(held ? 'resumed' : 'taken_over');
    // A connection still attached (a client that reconnected without closing) gives way.
    const previous = [...this.connections].find((c) => c.session === session && c !== state);
    if (previous) {
      previous.session = null;
      previous.conn.close(CloseCode.UnknownError);
    }
    session.connection = conn;
    session.disconnectedAt = null;
    state.session = session;
    for (const json of frames) conn.sendDispatch(json);
    session.dispatch('RESUMED', '{}');
    session.markCheckpoint();
  }

  /**
   * A session this instance does not hold, from the shared store (its instance died, or the
   * client reconnected elsewhere): claimed, then rebuilt by replaying the event log from its
   * checkpoint. Null when there is no such session of this user, or its events are gone.
   */
  private async takeOver(id: string, identity: SessionIdentity): Promise<GatewaySession | null> {
    if (!this.store || !/^[0-9a-f]{32}$/.test(id)) return null;
    const record = await this.store.claim(id, this.instanceId, identity.userId);
    if (!record || record.bot !== identity.bot) return null;
    const session = new GatewaySession(
      id,
      identity,
      record.intents,
      record.shard,
      record.largeThreshold,
    );
    session.seq = record.seq;
    session.seenPos = session.settledPos = record.pos;
    session.checkpoint = { seq: record.seq, pos: record.pos, guilds: null };
    for (const [guildId, canView] of record.guilds) session.guilds.set(guildId, { canView });
    session.disconnectedAt = Date.now();
    this.dispatcher.register(session);
    const events = await this.log.range(record.pos).catch(() => null);
    if (!events) {
      this.dispatcher.unregister(session);
      await this.store.drop(id).catch(() => undefined);
      return null;
    }
    this.dispatcher.replay(session, events);
    await session.idle();
    this.sessions.set(id, session);
    return session;
  }

  /** Writes the checkpoints of the sessions that changed (all of them now and then). */
  private async writeCheckpoints(): Promise<void> {
    if (!this.store) return;
    const now = Date.now();
    const all = now - this.lastKeepAlive >= KEEPALIVE_MS;
    if (all) this.lastKeepAlive = now;
    const points = new Map<string, Checkpoint>();
    for (const session of this.sessions.values()) {
      if (session.starting || !(session.dirty || all)) continue;
      const point = session.checkpoint;
      points.set(session.id, { seq: point.seq, pos: point.pos, guilds: point.guilds ?? undefined });
      point.guilds = null;
      session.dirty = false;
    }
    try {
      const lost = await this.store.checkpoint(this.instanceId, points);
      for (const id of lost) {
        const session = this.sessions.get(id);
        if (!session) continue;
        // Taken over by another instance (the client resumed there): this copy is stale.
        this.sessions.delete(id);
        this.dispatcher.unregister(session);
        session.connection?.ws.terminate();
      }
    } catch (err) {
      for (const [id, point] of points) {
        const session = this.sessions.get(id);
        if (!session) continue;
        session.dirty = true;
        session.checkpoint.guilds ??= point.guilds ?? null;
      }
      this.logger.warn(`gateway checkpoints not written: ${(err as Error).message}`);
    }
  }

  /** The identity behind an identify/resume token: a bot token (bare or `Bot `-prefixed) or a user session token. */
  private async authenticate(token: string): Promise<SessionIdentity | null> {
    const candidates: ParsedCredential[] = token.startsWith('Bot ')
      ? [{ scheme: 'bot', credential: token.slice(4) }]
      : [
          { scheme: 'bot', credential: token },
          { scheme: 'session', credential: token },
        ];
    for (const credential of candidates) {
      if (!/^[\x21-\x7e]+$/.test(credential.credential)) continue;
      const caller = await this.resolvers.resolveDetached(credential);
      if (caller && (caller.kind === 'bot' || caller.kind === 'session')) {
        return {
          userId: caller.userId,
          bot: caller.kind === 'bot',
          applicationId: caller.kind === 'bot' ? caller.applicationId : null,
          credential,
          tags: tagsOf(caller),
        };
      }
    }
    return null;
  }

  private async applicationFlags(applicationId: string): Promise<number> {
    const [row] = await this.dataSource.query<Array<{ flags: number }>>(
      'SELECT flags FROM oauth2_applications WHERE id = $1',
      [applicationId],
    );
    return row?.flags ?? 0;
  }

  private onClose(state: ConnectionState, code: number): void {
    state.conn.closedByPeer();
    if (this.connections.delete(state)) this.metrics.gatewayConnections(-1);
    this.metrics.gatewayClose(code);
    const session = state.session;
    if (!session || session.connection !== state.conn) return;
    session.connection = null;
    session.disconnectedAt = Date.now();
    // A client that closes normally ends its session (Discord's rule); other closes can resume.
    if (
      code === 1000 ||
      code === 1001 ||
      (code >= 4000 && !RESUMABLE_CLOSES.has(code) && code < 4100)
    ) {
      this.dropSession(session);
    }
  }

  private dropSession(session: GatewaySession): void {
    this.sessions.delete(session.id);
    this.dispatcher.unregister(session);
    this.store?.drop(session.id).catch(() => undefined);
  }

  /** Closes a connection whose client does not read fast enough (resumable). */
  private slowConsumer(state: ConnectionState): void {
    this.logger.warn('closing a gateway connection that does not keep up (resumable)');
    state.conn.close(CloseCode.UnknownError);
    state.conn.ws.terminate();
  }

  /** Heartbeat timeouts (4009) and expired disconnected sessions. */
  private sweepConnections(): void {
    const now = Date.now();
    const limit = this.config.gateway.heartbeatIntervalMs * (1 + HEARTBEAT_GRACE);
    for (const state of this.connections) {
      if (state.conn.open && now - state.lastHeartbeat > limit) {
        state.conn.close(CloseCode.SessionTimedOut);
      }
    }
    for (const session of this.sessions.values()) {
      if (session.disconnectedAt !== null && now - session.disconnectedAt > RESUME_WINDOW_MS) {
        this.dropSession(session);
      }
    }
  }

  /**
   * A credential changed (CredentialResolvers' tags): the sessions presenting it are
   * re-authenticated, and closed with 4004 when it no longer holds (token reset, logout, ban,
   * application deleted) — on every instance, since every instance gets the notification.
   */
  private credentialChanged(tag: string): void {
    const affected = [...this.sessions.values()].filter((s) => s.identity.tags.includes(tag));
    if (affected.length === 0) return;
    this.resolvers.cache.invalidate(tag);
    for (const session of affected) {
      this.resolvers
        .resolveDetached(session.identity.credential)
        .then((caller) => {
          if (caller && caller.userId === session.identity.userId) return;
          this.revoke(session);
        })
        .catch((err: Error) =>
          this.logger.warn(`re-checking a gateway session failed: ${err.message}`),
        );
    }
  }

  private revoke(session: GatewaySession): void {
    session.connection?.close(CloseCode.AuthenticationFailed);
    this.dropSession(session);
  }

  /**
   * Events may have been lost (the event log was unreachable, or an append failed): no session
   * can be trusted to hold every event, and none could be resumed without a hole. Each is ended
   * and its client told to identify again (op 9, not resumable): a fresh READY and GUILD_CREATE
   * give it the current state; the messages in between are in the REST history.
   */
  private invalidateAll(): void {
    if (this.sessions.size === 0) return;
    this.logger.warn(
      `the event log lost events: ${this.sessions.size} gateway session(s) must identify again`,
    );
    for (const state of this.connections) {
      if (!state.session) continue;
      state.session = null;
      state.conn.sendOp(Op.InvalidSession, false);
    }
    for (const session of [...this.sessions.values()]) {
      session.connection = null;
      this.dropSession(session);
    }
  }

  /** The IP ban list changed: connections from a banned address are closed with 4004. */
  private bansChanged(): void {
    for (const state of this.connections) {
      this.bans.check(state.conn.ip, (refusal) => {
        if (!refusal) return;
        if (state.session) this.revoke(state.session);
        else state.conn.close(CloseCode.AuthenticationFailed);
      });
    }
  }

  /** Draining: every client is told to reconnect (op 7), then what is still open is closed. */
  private reconnectAll(): void {
    if (this.connections.size === 0) return;
    this.logger.log(`draining: op 7 Reconnect to ${this.connections.size} gateway connection(s)`);
    for (const state of this.connections) state.conn.sendOp(Op.Reconnect, null);
    setTimeout(() => {
      for (const state of this.connections) state.conn.close(CloseCode.UnknownError);
    }, RECONNECT_GRACE_MS).unref();
  }

  private clientIp(req: IncomingMessage): string | undefined {
    if (!this.trust) return req.socket.remoteAddress;
    return proxyaddr(req, this.trust);
  }
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

function parseShard(value: unknown): [number, number] | null {
  if (value === undefined || value === null) return [0, 1];
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [id, count] = value as unknown[];
  if (!Number.isSafeInteger(id) || !Number.isSafeInteger(count)) return null;
  if ((count as number) < 1 || (id as number) < 0 || (id as number) >= (count as number))
    return null;
  return [id as number, count as number];
}

/** The change tags of a gateway caller (as CredentialResolvers tags the cached caller). */
function tagsOf(caller: Caller): string[] {
  switch (caller.kind) {
    case 'session':
      return [`s:${caller.sessionId}`, `u:${caller.userId}`];
    case 'bot':
      return [`a:${caller.applicationId}`, `u:${caller.userId}`];
    default:
      return [`u:${caller.userId}`];
  }
}
