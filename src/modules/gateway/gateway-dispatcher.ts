import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { EventLog } from '../../infra/events/event-log';
import { compareLogIds, type LoggedEvent } from '../../infra/events/realtime-event';
import { GuildSnapshots } from '../guilds/guild-snapshots';
import type { GatewaySession } from './gateway-session';
import { EVENT_INTENT, Intents, shardOf } from './protocol';

/**
 * Routes the committed events of every instance (EventLog) to this instance's sessions: to the
 * members of the event's guild, with VIEW_CHANNEL for channel and message events, within their
 * shard and intents; message content only with MESSAGE_CONTENT (or when the bot is the author or
 * mentioned). A member's own membership changes become GUILD_CREATE / GUILD_DELETE for them.
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
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** The log position routed up to (sessions starting now follow from it). */
  get lastRouted(): string {
    return this.log.position;
  }

  /** Starts routing to a session that is about to read its guilds (before it reads them). */
  register(session: GatewaySession): void {
    addTo(this.byUser, session.identity.userId, session);
    this.starting.add(session);
  }

  /** The session's guilds are known: index them and send what was queued meanwhile. */
  started(session: GatewaySession): void {
    for (const guildId of session.guilds.keys()) addTo(this.byGuild, guildId, session);
    this.starting.delete(session);
    session.started();
  }

  /**
   * A session taken over from another instance: `events` (the log after its checkpoint) go
   * through the same routing as live ones, then what was queued live meanwhile (events already
   * replayed are recognised by their log position and skipped).
   */
  replay(session: GatewaySession, events: LoggedEvent[]): void {
    const queued = session.starting ?? [];
    session.starting = null;
    for (const guildId of session.guilds.keys()) addTo(this.byGuild, guildId, session);
    this.starting.delete(session);
    for (const event of events) this.deliver(session, event, new Rendered(event));
    for (const run of queued) run();
  }

  unregister(session: GatewaySession): void {
    this.starting.delete(session);
    removeFrom(this.byUser, session.identity.userId, session);
    for (const guildId of session.guilds.keys()) removeFrom(this.byGuild, guildId, session);
  }

  /** Index sizes (diagnostics, leak checks). */
  stats(): { guilds: number; users: number; starting: number } {
    return { guilds: this.byGuild.size, users: this.byUser.size, starting: this.starting.size };
  }

  private route(event: LoggedEvent): void {
    const targets = new Set(this.byGuild.get(event.guildId) ?? []);
    if (event.userId) for (const s of this.byUser.get(event.userId) ?? []) targets.add(s);
    for (const s of this.starting) targets.add(s);
    if (targets.size === 0) return;
    const rendered = new Rendered(event);
    for (const session of targets) {
      if (session.starting) {
        // Queued as a whole: filtered against the guilds it will know once started.
        session.starting.push(() => this.deliver(session, event, rendered));
      } else {
        this.deliver(session, event, rendered);
      }
    }
  }

  private deliver(session: GatewaySession, event: LoggedEvent, rendered: Rendered): void {
    if (compareLogIds(event.id, session.seenPos) <= 0) return;
    session.seenPos = event.id;
    const own = event.userId !== undefined && event.userId === session.identity.userId;
    if (own && event.t === 'GUILD_MEMBER_ADD') return this.joined(session, event);
    if (own && event.t === 'GUILD_MEMBER_REMOVE') return this.left(session, event);
    if (own && event.t === 'GUILD_MEMBER_UPDATE') this.refresh(session, event.guildId);
    // Decided in order: a GUILD_CREATE still being read changes what the session follows.
    if (session.busy) session.serial(() => this.apply(session, event, rendered));
    else this.apply(session, event, rendered);
  }

  private apply(session: GatewaySession, event: LoggedEvent, rendered: Rendered): void {
    if (this.accepts(session, event)) session.dispatch(event.t, rendered.for(session));
    session.settle(event.id);
  }

  private accepts(session: GatewaySession, event: LoggedEvent): boolean {
    const guild = session.guilds.get(event.guildId);
    if (!guild) return false;
    if (event.channelId !== undefined && !guild.canView) return false;
    const intent = EVENT_INTENT[event.t];
    return intent === undefined || session.wants(intent);
  }

  /** The session's user joined a guild: GUILD_CREATE once its snapshot is read. */
  private joined(session: GatewaySession, event: LoggedEvent): void {
    const [shardId, shardCount] = session.shard;
    if (shardOf(event.guildId, shardCount) !== shardId) {
      return session.inOrder(() => session.settle(event.id));
    }
    session.serial(async () => {
      const guild = session.guilds.has(event.guildId)
        ? null
        : await this.snapshots.forMember(session.identity.userId, event.guildId, {
            members: session.wants(Intents.GUILD_MEMBERS),
            largeThreshold: session.largeThreshold,
          });
      if (guild && !session.guilds.has(guild.guildId)) {
        session.guilds.set(guild.guildId, { canView: guild.canView });
        session.guildsDirty = true;
        addTo(this.byGuild, guild.guildId, session);
        if (session.wants(Intents.GUILDS)) {
          session.dispatch('GUILD_CREATE', JSON.stringify(guild.create));
        }
      }
      session.settle(event.id);
    });
  }

  /** Their roles changed: whether they still see the channels. */
  private refresh(session: GatewaySession, guildId: string): void {
    session.serial(async () => {
      const guild = await this.snapshots.forMember(session.identity.userId, guildId, {
        members: false,
        largeThreshold: session.largeThreshold,
      });
      const known = session.guilds.get(guildId);
      if (guild && known && known.canView !== guild.canView) {
        known.canView = guild.canView;
        session.guildsDirty = true;
      }
    });
  }

  private left(session: GatewaySession, event: LoggedEvent): void {
    const guildId = event.guildId;
    session.inOrder(() => {
      if (session.guilds.delete(guildId)) {
        session.guildsDirty = true;
        removeFrom(this.byGuild, guildId, session);
        if (session.wants(Intents.GUILDS)) {
          session.dispatch('GUILD_DELETE', JSON.stringify({ id: guildId }));
        }
      }
      session.settle(event.id);
    });
  }
}

/**
 * An event's payload serialized once for all recipients — and once more without the message
 * content, for bots without MESSAGE_CONTENT that are neither its author nor mentioned in it.
 */
class Rendered {
  private full: string | null = null;
  private redacted: string | null = null;

  constructor(private readonly event: LoggedEvent) {}

  for(session: GatewaySession): string {
    if (this.needsRedaction(session)) {
      this.redacted ??= JSON.stringify({
        ...this.event.d,
        content: '',
        embeds: [],
        attachments: [],
        components: [],
      });
      return this.redacted;
    }
    this.full ??= JSON.stringify(this.event.d);
    return this.full;
  }

  private needsRedaction(session: GatewaySession): boolean {
    if (session.readsContent) return false;
    if (this.event.t !== 'MESSAGE_CREATE' && this.event.t !== 'MESSAGE_UPDATE') return false;
    const d = this.event.d as { author?: { id?: string }; mentions?: Array<{ id?: string }> };
    const self = session.identity.userId;
    if (d.author?.id === self) return false;
    return !(d.mentions ?? []).some((u) => u.id === self);
  }
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
