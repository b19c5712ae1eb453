import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { EphemeralEvents } from '../../infra/events/ephemeral-events';
import { EventLog } from '../../infra/events/event-log';
import { carriesContent, contentFree, type LoggedEvent } from '../../infra/events/realtime-event';
import { GuildSnapshots } from '../guilds/guild-snapshots';
import type { GatewaySession } from './gateway-session';
import { EVENT_INTENT, GatewayDispatchEvents as E, Intent, shardOf } from './protocol';

/** Events after which a member's channel visibility in the guild may have changed. */
const PERMISSION_CHANGES = new Set<string>([E.GuildRoleUpdate, E.GuildRoleDelete]);

/**
 * Routes the log's events (EventLog: every instance's, in order) to this instance's sessions:
 * guild events to the members of the guild, with VIEW_CHANNEL for channel and message events,
 * within their shard and intents, message content only with MESSAGE_CONTENT (or to its author
 * and those it mentions); user events to that user's sessions. A member's own membership
 * changes become GUILD_CREATE / GUILD_DELETE for them, and their own GUILD_MEMBER_UPDATE reaches
 * them whatever their intents (Discord's rule). Payloads are sent as the writer serialised them.
 */
@Injectable()
export class GatewayDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Gateway');
  private readonly byGuild = new Map<string, Set<GatewaySession>>();
  private readonly byUser = new Map<string, Set<GatewaySession>>();
  /** Sessions reading their snapshot: every event is queued for them, filtered once started. */
  private readonly starting = new Set<GatewaySession>();
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly log: EventLog,
    private readonly snapshots: GuildSnapshots,
    private readonly ephemeral: EphemeralEvents,
  ) {}

  onApplicationBootstrap(): void {
    this.unsubscribe = this.log.subscribe((events) => {
      for (const event of events) {
        try {
          this.route(event);
        } catch (err) {
          this.logger.error(`dispatching ${event.t} failed: ${(err as Error).message}`);
        }
      }
    });
    this.ephemeral.subscribe((event) => this.routeEphemeral(event));
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** The log position routed up to (sessions starting now follow from it). */
  get position(): number {
    return this.log.position;
  }

  /** Starts routing to a session that is about to read its guilds (before it reads them). */
  register(session: GatewaySession): void {
    addTo(this.byUser, session.identity.userId, session);
    this.starting.add(session);
  }

  /** The session's guilds are known: index them and send what was queued meanwhile. */
  started(session: GatewaySession): void {
    for (const guildId of session.guildIds) addTo(this.byGuild, guildId, session);
    this.starting.delete(session);
    session.started();
  }

  /**
   * A session taken over from another instance: `events` (the log after its checkpoint) go
   * through the same routing as live ones, then what was queued live meanwhile (events already
   * replayed are recognised by their position and skipped; those after them follow in order).
   */
  replay(session: GatewaySession, events: LoggedEvent[]): void {
    for (const guildId of session.guildIds) addTo(this.byGuild, guildId, session);
    this.starting.delete(session);
    session.started(() => {
      for (const event of events) this.deliver(session, event);
    });
  }

  unregister(session: GatewaySession): void {
    this.starting.delete(session);
    removeFrom(this.byUser, session.identity.userId, session);
    for (const guildId of session.guildIds) removeFrom(this.byGuild, guildId, session);
  }

  /** Index sizes (diagnostics, leak checks). */
  stats(): { guilds: number; users: number; starting: number } {
    return { guilds: this.byGuild.size, users: this.byUser.size, starting: this.starting.size };
  }

  /** The sessions of a guild on this instance. */
  sessionsOf(guildId: string): ReadonlySet<GatewaySession> {
    return this.byGuild.get(guildId) ?? EMPTY;
  }

  private route(event: LoggedEvent): void {
    const members = event.guildId ? this.byGuild.get(event.guildId) : undefined;
    if (members) for (const session of members) this.deliver(session, event);
    if (event.userId) {
      for (const session of this.byUser.get(event.userId) ?? EMPTY) {
        if (!members?.has(session) && !session.starting) this.deliver(session, event);
      }
    }
    // Queued whole while they start: filtered against the guilds they will know then.
    for (const session of this.starting) session.whenStarted(() => this.deliver(session, event));
  }

  /**
   * An ephemeral event (typing, presence): to the sessions that accept it, as it stands now; a
   * user's own presence is not sent back to them.
   */
  private routeEphemeral(event: LoggedEvent): void {
    if (event.t === E.InteractionCreate) return this.routeInteraction(event);
    const sessions = event.guildId
      ? this.byGuild.get(event.guildId)
      : this.byUser.get(event.userId ?? '');
    const ownPresence = event.t === E.PresenceUpdate ? event.userId : null;
    for (const session of sessions ?? EMPTY) {
      if (session.busy || session.identity.userId === ownPresence) continue;
      if (this.accepts(session, event)) {
        session.dispatchEphemeral(event.t, payloadFor(session, event));
      }
    }
  }

  /**
   * An interaction for an application's bot: to its sessions on the shard of the interaction's
   * guild, whatever their intents (Discord's rule).
   */
  private routeInteraction(event: LoggedEvent): void {
    for (const session of this.byUser.get(event.userId ?? '') ?? EMPTY) {
      const [shardId, shardCount] = session.shard;
      if (event.guildId && shardOf(event.guildId, shardCount) !== shardId) continue;
      session.dispatchEphemeral(event.t, event.data);
    }
  }

  private deliver(session: GatewaySession, event: LoggedEvent): void {
    if (!session.see(event.position)) return;
    const own = event.userId !== null && event.userId === session.identity.userId;
    if (own && event.guildId) {
      if (event.t === E.GuildMemberAdd) return this.joined(session, event, event.guildId);
      if (event.t === E.GuildMemberRemove) return this.left(session, event, event.guildId);
      if (event.t === E.GuildMemberUpdate) this.refresh(session, event.guildId);
    }
    if (event.guildId && PERMISSION_CHANGES.has(event.t) && session.follows(event.guildId)) {
      this.refresh(session, event.guildId);
    }
    // Decided in order: a GUILD_CREATE still being read changes what the session follows.
    if (session.busy) session.serial(() => this.apply(session, event));
    else this.apply(session, event);
  }

  private apply(session: GatewaySession, event: LoggedEvent): void {
    if (this.accepts(session, event)) session.dispatch(event.t, payloadFor(session, event));
    session.settle(event.position);
  }

  private accepts(session: GatewaySession, event: LoggedEvent): boolean {
    const self = session.identity.userId;
    if (!event.guildId) return event.userId === self;
    const canView = session.canView(event.guildId);
    if (canView === undefined) return false;
    if (event.channelId !== null && !canView) return false;
    if (event.t === E.GuildMemberUpdate && event.userId === self) return true;
    const intent = EVENT_INTENT[event.t];
    return intent === undefined || session.wants(intent);
  }

  /** The session's user joined a guild: GUILD_CREATE once its snapshot is read. */
  private joined(session: GatewaySession, event: LoggedEvent, guildId: string): void {
    const [shardId, shardCount] = session.shard;
    if (shardOf(guildId, shardCount) !== shardId) {
      return session.inOrder(() => session.settle(event.position));
    }
    session.serial(async () => {
      const guild = session.follows(guildId)
        ? null
        : await this.snapshots.forMember(session.identity.userId, guildId, {
            members: session.wants(Intent.GuildMembers),
            largeThreshold: session.largeThreshold,
          });
      if (guild && !session.follows(guildId)) {
        session.follow(guildId, guild.canView);
        addTo(this.byGuild, guildId, session);
        if (session.wants(Intent.Guilds)) session.dispatch(E.GuildCreate, guild.create);
      }
      session.settle(event.position);
    });
  }

  /** Their permissions may have changed: whether they still see the channels. */
  private refresh(session: GatewaySession, guildId: string): void {
    session.serial(async () => {
      const canView = await this.snapshots.canView(session.identity.userId, guildId);
      if (canView !== null && session.follows(guildId)) session.follow(guildId, canView);
    });
  }

  private left(session: GatewaySession, event: LoggedEvent, guildId: string): void {
    session.inOrder(() => {
      if (session.unfollow(guildId)) {
        removeFrom(this.byGuild, guildId, session);
        if (session.wants(Intent.Guilds)) {
          session.dispatch(E.GuildDelete, JSON.stringify({ id: guildId }));
        }
      }
      session.settle(event.position);
    });
  }
}

const EMPTY: ReadonlySet<GatewaySession> = new Set();

/**
 * The payload text a session gets: as written, or without the message's content for a bot
 * without MESSAGE_CONTENT that is neither its author nor mentioned in it.
 */
function payloadFor(session: GatewaySession, event: LoggedEvent): string {
  if (!carriesContent(event) || session.readsContent) return event.data;
  const self = session.identity.userId;
  if (event.authorId === self || event.mentionIds?.includes(self)) return event.data;
  return contentFree(event);
}

function addTo<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  let set = index.get(key);
  if (!set) index.set(key, (set = new Set()));
  set.add(value);
}

function removeFrom<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  const set = index.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) index.delete(key);
}
