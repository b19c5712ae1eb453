import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { TaggedCache } from '../../common/cache/tagged-cache';
import { ApiError } from '../../common/errors/api-error';
import { isDatabaseUnavailable } from '../../common/errors/database-unavailable';
import { ErrorCode } from '../../common/errors/error-code';
import type { AddressGate } from '../../common/http/platform/http-platform';
import { DatabaseOutageTracker } from '../../common/lifecycle/database-outage.tracker';
import { DatabaseNotifications } from '../../database/notifications';
import { BanChecks } from './ban-checks.service';
import { normalizeClientIp } from './ban-values';

/** Where the `ip_bans` trigger announces every change (payload `ip`). */
export const BANS_CHANNEL = 'parley_bans';
export const IP_BANS_CHANGED = 'ip';

// Decisions are cached per client address string. Correctness rests on the notifications (every
// change drops every decision, on every instance), not on the TTL.
const MAX_DECISIONS = 50_000;
const DECISION_TTL_MS = 10 * 60_000;
const TAGS = [IP_BANS_CHANGED];

/**
 * The IP ban check of every request (ARCHITECTURE.md §3), run by the HTTP platform's first hook
 * before routing, body parsing and guards: a banned client gets 403 `IP_BANNED` before its body is read, on
 * every route, unknown ones included.
 *
 * The hot path is one Map lookup: each client address's decision is cached in-process and
 * dropped on every instance within moments of a ban or unban (LISTEN/NOTIFY on `parley_bans`);
 * while the notification connection is down nothing is served from memory. Concurrent first
 * requests from one address share one query.
 *
 * While PostgreSQL is unreachable the check fails open (the outage tracker logs it once): every
 * route that needs the database answers 503 anyway, and the liveness probe must keep answering.
 */
@Injectable()
export class IpBanGate implements OnModuleInit, AddressGate {
  private readonly logger = new Logger(IpBanGate.name);
  private readonly decisions = new TaggedCache<boolean>(MAX_DECISIONS, DECISION_TTL_MS);
  private readonly inflight = new Map<string, { generation: number; banned: Promise<boolean> }>();

  constructor(
    private readonly checks: BanChecks,
    private readonly notifications: DatabaseNotifications,
    private readonly outage: DatabaseOutageTracker,
  ) {}

  onModuleInit(): void {
    this.notifications.listen(BANS_CHANNEL, {
      onNotification: () => this.decisions.invalidate(IP_BANS_CHANGED),
      onListening: (on) => this.decisions.setEnabled(on),
    });
  }

  /** Lets the request on (`done()`) or refuses it (`done(error)`); `ip` as the platform reports it. */
  check(ip: string | undefined, done: (refusal?: ApiError) => void): void {
    if (!ip) return done();
    const cached = this.decisions.get(ip);
    if (cached === false) return done();
    if (cached === true) return done(new ApiError(ErrorCode.IpBanned));
    if (this.outage.down) return done();
    this.decide(ip).then(
      (banned) => (banned ? done(new ApiError(ErrorCode.IpBanned)) : done()),
      (err: unknown) => {
        if (isDatabaseUnavailable(err)) {
          this.outage.failed(err);
          return done();
        }
        this.logger.error(`IP ban check failed: ${(err as Error)?.message ?? String(err)}`);
        done(new ApiError(ErrorCode.InternalServerError));
      },
    );
  }

  /** Whether the client address `ip` (as the platform reports it) is banned; caches the answer. */
  private decide(ip: string): Promise<boolean> {
    const generation = this.decisions.currentGeneration;
    const pending = this.inflight.get(ip);
    if (pending && pending.generation === generation) return pending.banned;
    const address = normalizeClientIp(ip);
    const banned = (address ? this.checks.isIpBanned(address) : Promise.resolve(false)).then(
      (result) => {
        this.decisions.set(ip, result, TAGS, generation);
        return result;
      },
    );
    const entry = { generation, banned };
    this.inflight.set(ip, entry);
    const forget = () => {
      if (this.inflight.get(ip) === entry) this.inflight.delete(ip);
    };
    banned.then(forget, forget);
    return banned;
  }
}
