import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EphemeralEvents } from '../../infra/events/ephemeral-events';
import type { PresenceUpdateDto } from './dto/presence-update.dto';
import type { GatewaySession } from './gateway-session';
import { GatewayDispatchEvents as E } from './protocol';
import { PRESENCE_STALE_MS, PresenceStore, type Presence } from './presence-store';

/** A connected session without a presence of its own is online (Discord's default). */
const ONLINE: Presence = { status: 'online', activities: [], since: null, afk: false };
/** Live sessions rewrite their presence this often, well within PRESENCE_STALE_MS. */
const REFRESH_MS = PRESENCE_STALE_MS / 4;
/** How long a GUILD_CREATE waits for the presences it lists. */
const READ_TIMEOUT_MS = 500;

/**
 * Presences (op 3, identify's `presence`, GUILD_PRESENCES): each session holds one, kept in the
 * PresenceStore that every instance reads (GUILD_CREATE's `presences`, op 8 with `presences`);
 * a change is announced to the user's guilds as PRESENCE_UPDATE — ephemeral, like typing
 * (EphemeralEvents) — and when the user's last session ends they go offline.
 */
@Injectable()
export class PresenceService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Gateway');
  private readonly held = new Map<GatewaySession, Presence>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: PresenceStore,
    private readonly ephemeral: EphemeralEvents,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** The session went live (identify): its presence, online unless it asked for another. */
  started(session: GatewaySession, requested: PresenceUpdateDto | null): Promise<void> {
    return this.update(session, requested ? toPresence(requested) : ONLINE);
  }

  /** Op 3: the session's new presence; announced only when it changed. */
  async changed(session: GatewaySession, dto: PresenceUpdateDto): Promise<void> {
    const next = toPresence(dto);
    const previous = this.held.get(session);
    if (previous && signature(previous) === signature(next)) return;
    await this.update(session, next);
  }

  /** The session ended for good: its presence goes; the user's is what their others say. */
  async ended(session: GatewaySession): Promise<void> {
    if (!this.held.delete(session)) return;
    const guilds = [...session.guildIds];
    const left = await this.store.remove(session.identity.userId, session.id).catch(() => null);
    this.announce(session.identity.userId, guilds, left);
  }

  /**
   * The current presences of those of `userIds` who are visible; none when the store does not
   * answer within READ_TIMEOUT_MS (a GUILD_CREATE never waits on Redis being away).
   */
  of(userIds: string[]): Promise<Map<string, Presence>> {
    const none = new Map<string, Presence>();
    const read = this.store.of(userIds).catch((err: Error) => {
      this.logger.warn(`presences unreadable: ${err.message}`);
      return none;
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Map<string, Presence>>((resolve) => {
      timer = setTimeout(() => resolve(none), READ_TIMEOUT_MS);
    });
    return Promise.race([read, late]).finally(() => clearTimeout(timer));
  }

  /** The visible presences of `userIds` in Discord's shape (GUILD_CREATE, member chunks). */
  async gatewayPresencesOf(userIds: string[]): Promise<Map<string, Record<string, unknown>>> {
    const found = await this.of(userIds);
    return new Map([...found].map(([id, p]) => [id, toGatewayPresence(id, p)]));
  }

  /** Never waits on the store: with Redis away a session still starts, its presence unshared. */
  private update(session: GatewaySession, presence: Presence): Promise<void> {
    this.held.set(session, presence);
    this.store.set(session.identity.userId, session.id, presence).catch((err: Error) => {
      this.logger.warn(`presence not stored: ${err.message}`);
    });
    this.announce(session.identity.userId, [...session.guildIds], presence);
    return Promise.resolve();
  }

  private announce(userId: string, guildIds: string[], presence: Presence | null): void {
    for (const guildId of guildIds) {
      this.ephemeral.publish({
        t: E.PresenceUpdate,
        guildId,
        // Whose presence: their own sessions are not told (the gateway skips them).
        userId,
        d: { ...toGatewayPresence(userId, presence), guild_id: guildId },
      });
    }
  }

  private refresh(): void {
    for (const [session, presence] of this.held) {
      this.store.set(session.identity.userId, session.id, presence).catch(() => undefined);
    }
  }
}

/** Discord's presence of a user in a guild (PRESENCE_UPDATE, GUILD_CREATE's `presences`). */
export function toGatewayPresence(userId: string, p: Presence | null): Record<string, unknown> {
  const status = !p || p.status === 'invisible' ? 'offline' : p.status;
  return {
    user: { id: userId },
    status,
    activities: status === 'offline' ? [] : p!.activities,
    client_status: status === 'offline' ? {} : { web: status },
  };
}

function toPresence(dto: PresenceUpdateDto): Presence {
  return {
    status: dto.status === 'offline' ? 'invisible' : dto.status,
    activities: (dto.activities ?? []).map((a) => ({
      name: a.name,
      type: a.type,
      ...(a.url != null && { url: a.url }),
      ...(a.state != null && { state: a.state }),
      created_at: Date.now(),
    })),
    since: dto.since ?? null,
    afk: dto.afk ?? false,
  };
}

/** What tells two presences apart (an activity's `created_at` is when it was set, not what). */
function signature(p: Presence): string {
  const activities = p.activities.map(({ created_at: _at, ...rest }) => rest);
  return JSON.stringify({ ...p, activities });
}
