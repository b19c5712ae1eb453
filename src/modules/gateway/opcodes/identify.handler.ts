import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Slots } from '../../../common/concurrency/slots';
import { AppConfig } from '../../../config/app.config';
import { EventLog } from '../../../infra/events/event-log';
import { ApplicationFlagsReader } from '../../oauth2/application-flags.port';
import { GuildSnapshots, yieldToLoop } from '../../guilds/guild-snapshots';
import { toGatewaySelf, toUserPartial } from '../../users/user.mapper';
import { UsersService } from '../../users/users.service';
import { IDENTIFY_CLOSE_CODES, IdentifyDto } from '../dto/identify.dto';
import { PresenceUpdateDto } from '../dto/presence-update.dto';
import { validatePayload } from '../dto/validate-payload';
import { PresenceService } from '../presence.service';
import { GatewayAuthenticator } from '../gateway-authenticator';
import type { GatewayConnection } from '../gateway-connection';
import { GatewayDispatcher } from '../gateway-dispatcher';
import { GatewayLimits } from '../gateway-limits';
import { GatewaySession, type SessionIdentity } from '../gateway-session';
import {
  CloseCode,
  DEFAULT_LARGE_THRESHOLD,
  disallowedIntents,
  GATEWAY_VERSION,
  GatewayDispatchEvents as E,
  Intent,
  KNOWN_INTENTS,
  MAX_GUILDS_PER_SESSION,
  MAX_LARGE_THRESHOLD,
  MIN_LARGE_THRESHOLD,
  Op,
  shardOf,
} from '../protocol';
import { SessionRegistry } from '../session-registry';
import { SessionStore } from '../session-store';

/**
 * Identifies processed at a time. Each holds its snapshot and frames while it builds READY; a
 * burst of thousands all in flight at once left V8 with a heap grown for all of them (the
 * memory an idle connection appears to cost).
 */
const MAX_CONCURRENT_IDENTIFIES = 8;

/** GUILD_CREATEs sent between two turns of the event loop. */
const GUILD_CREATES_PER_TURN = 100;

/**
 * Op 2 Identify: authenticates the token, applies the limits (a bot's session start limit and
 * privileged intents, a user's identifies per minute and sessions), reads the guilds, and starts
 * the session: READY, then a GUILD_CREATE per guild of its shard. The session is routed events
 * from before its guilds are read (queued until READY), so nothing committed meanwhile is missed,
 * and it is registered — revocable — before the credential is checked a second time, so a logout
 * that lands while READY is being built ends it.
 */
@Injectable()
export class IdentifyHandler {
  private readonly logger = new Logger('Gateway');

  constructor(
    private readonly config: AppConfig,
    private readonly auth: GatewayAuthenticator,
    private readonly limits: GatewayLimits,
    private readonly flags: ApplicationFlagsReader,
    private readonly users: UsersService,
    private readonly snapshots: GuildSnapshots,
    private readonly dispatcher: GatewayDispatcher,
    private readonly registry: SessionRegistry,
    private readonly store: SessionStore,
    private readonly log: EventLog,
    private readonly presences: PresenceService,
  ) {}

  /** Identifies handled at a time; more wait their turn (a reconnect storm, an abuser). */
  private readonly slots = new Slots(MAX_CONCURRENT_IDENTIFIES);

  handle(conn: GatewayConnection, d: unknown): Promise<void> {
    return this.slots.run(async () => {
      if (conn.open) await this.identify(conn, d);
    });
  }

  private async identify(conn: GatewayConnection, d: unknown): Promise<void> {
    const checked = validatePayload(IdentifyDto, d, IDENTIFY_CLOSE_CODES);
    if (!checked.ok) return conn.close(checked.close);
    const dto = checked.value;
    const identity = await this.auth.authenticate(dto.token);
    if (!conn.open) return;
    if (!identity) {
      await this.limits.failed(conn.ip);
      return conn.close(CloseCode.AuthenticationFailed);
    }
    const intents = await this.admit(conn, identity, dto.intents);
    if (intents === null || !conn.open) return;
    const shard = dto.shard ?? [0, 1];
    const largeThreshold =
      dto.large_threshold !== undefined &&
      dto.large_threshold >= MIN_LARGE_THRESHOLD &&
      dto.large_threshold <= MAX_LARGE_THRESHOLD
        ? dto.large_threshold
        : DEFAULT_LARGE_THRESHOLD;

    const session = new GatewaySession(
      randomBytes(16).toString('hex'),
      identity,
      intents,
      shard,
      largeThreshold,
    );
    // Routed from now on (queued until READY); it follows the log after the head read next,
    // once every event committed by now is numbered, and before the guilds: what is at or
    // below that head is in the snapshot, what follows is sent.
    this.dispatcher.register(session);
    try {
      session.startAt(await this.log.committedHead());
      await this.start(conn, session, requestedPresence(dto.presence));
    } catch (err) {
      this.registry.drop(session);
      throw err;
    }
  }

  /**
   * The limits an identify must pass: the intents a bot may ask for, its session start limit,
   * a user's identifies per minute, and sessions per user. The session's intents, or null when
   * it was refused (closed, or op 9 sent).
   */
  private async admit(
    conn: GatewayConnection,
    identity: SessionIdentity,
    intents: number | undefined,
  ): Promise<number | null> {
    if (identity.bot) {
      if (intents === undefined) {
        conn.close(CloseCode.InvalidIntents);
        return null;
      }
      const flags = await this.flags.flagsOf(identity.applicationId!);
      if (disallowedIntents(intents, flags) !== 0) {
        conn.close(CloseCode.DisallowedIntents);
        return null;
      }
    }
    const allowed = identity.bot
      ? await this.limits.startBot(identity.applicationId!)
      : await this.limits.startUser(identity.userId);
    if (!conn.open) return null;
    if (!allowed) {
      conn.sendOp(Op.InvalidSession, false);
      return null;
    }
    const max = this.config.gateway.maxSessionsPerUser;
    if (this.registry.sessionCountOf(identity.userId) >= max) {
      // A session nobody is connected to makes room; otherwise the new one is refused.
      const stale = this.registry.oldestDisconnectedOf(identity.userId);
      if (!stale) {
        conn.sendOp(Op.InvalidSession, false);
        return null;
      }
      this.registry.drop(stale);
    }
    return identity.bot ? intents! : (intents ?? KNOWN_INTENTS);
  }

  private async start(
    conn: GatewayConnection,
    session: GatewaySession,
    presence: PresenceUpdateDto | null,
  ): Promise<void> {
    const identity = session.identity;
    const user = await this.users.getProfile(identity.userId);
    const guilds = await this.snapshots.forUser(identity.userId, {
      members: session.wants(Intent.GuildMembers),
      largeThreshold: session.largeThreshold,
      limit: MAX_GUILDS_PER_SESSION + 1,
      self: toUserPartial(user),
      presences: session.wants(Intent.GuildPresences)
        ? (userIds) => this.presences.gatewayPresencesOf(userIds)
        : undefined,
    });
    if (!conn.open) return this.registry.drop(session);
    const [shardId, shardCount] = session.shard;
    if (guilds.length > MAX_GUILDS_PER_SESSION && shardCount === 1) {
      this.registry.drop(session);
      return conn.close(CloseCode.ShardingRequired);
    }
    const mine = guilds.filter((g) => shardOf(g.guildId, shardCount) === shardId);
    for (const g of mine) session.follow(g.guildId, g.canView);
    this.registry.live(session, conn);
    // The credential again, now that a revocation would find the session: a logout committed
    // while the guilds were read ends it here rather than leave a live feed.
    if (!(await this.auth.stillValid(identity)) || !this.registry.has(session)) {
      return this.registry.revoke(session, CloseCode.AuthenticationFailed);
    }
    if (!conn.open) return;

    const ready: Record<string, unknown> = {
      v: GATEWAY_VERSION,
      user: toGatewaySelf(user),
      guilds: mine.map((g) => ({ id: g.guildId, unavailable: true })),
      session_id: session.id,
      session_type: 'normal',
      resume_gateway_url: this.config.gateway.url,
      shard: session.shard,
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
        flags: await this.flags.flagsOf(identity.applicationId!),
      };
    }
    session.dispatchStart(E.Ready, JSON.stringify(ready));
    if (session.wants(Intent.Guilds)) {
      for (let i = 0; i < mine.length; i++) {
        // In slices: a session in hundreds of guilds does not hold the event loop (events for it
        // wait in its queue until READY is out, so the order holds).
        if (i > 0 && i % GUILD_CREATES_PER_TURN === 0) await yieldToLoop();
        session.dispatchStart(E.GuildCreate, mine[i].create);
      }
    }
    // Resumable elsewhere from the start: READY and its GUILD_CREATEs are not in the log.
    session.markCheckpoint();
    await this.store
      .create(session.record(), this.registry.instanceId)
      .catch((err: Error) => this.logger.warn(`gateway session not shared: ${err.message}`));
    this.dispatcher.started(session);
    await this.presences.started(session, presence);
    this.logger.log({
      msg: 'gateway session started',
      session: session.id,
      user: identity.userId,
      application: identity.applicationId,
      intents: session.intents,
      shard: session.shard,
      guilds: mine.length,
      ip: conn.ip,
    });
  }
}

/** Identify's `presence`, when it is a valid one (otherwise the session starts online). */
function requestedPresence(raw: unknown): PresenceUpdateDto | null {
  if (raw === undefined || raw === null) return null;
  const checked = validatePayload(PresenceUpdateDto, raw, {});
  return checked.ok ? checked.value : null;
}
