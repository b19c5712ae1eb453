import type { ParsedCredential } from '../../common/auth/authorization-header';
import type { GatewayConnection } from './gateway-connection';
import type { StoredSession } from './session-store';
import { Intent } from './protocol';
import { ResumeBuffer, type Sent } from './resume-buffer';

/** How long a disconnected session can be resumed. */
export const RESUME_WINDOW_MS = 5 * 60_000;

export interface SessionIdentity {
  userId: string;
  bot: boolean;
  applicationId: string | null;
  /** The credential identify (or the last resume) presented, re-resolved when it may be revoked. */
  credential: ParsedCredential;
  /** What a change to the credential is announced under (CredentialResolvers' tags). */
  tags: string[];
}

/** What another instance needs to take the session over (session-store.ts). */
export interface Checkpoint {
  seq: number;
  /** Log position whose events the frames up to `seq` account for. */
  pos: number;
  /** Guilds followed then (id → holds VIEW_CHANNEL); null: unchanged since last written. */
  guilds: Array<[string, boolean]> | null;
}

/**
 * A gateway session: who identified, with which intents and shard, the guilds it follows, its
 * sequence and the frames it was sent (for resume). It outlives its connection for
 * RESUME_WINDOW_MS. Its state is changed only through these methods, each keeping one invariant:
 * `seq` numbers every dispatch once and in order; `checkpoint` only moves while a connection is
 * attached, after what it counts was handed to it; frames kept for resume are bounded.
 *
 * Work that must happen in order for one session — a membership change that reads the database
 * before its GUILD_CREATE, then the events after it — goes through `serial`.
 */
export class GatewaySession {
  private seqNo = 0;
  private readonly followed = new Map<string, boolean>();
  private guildsChanged = false;
  private readonly sent = new ResumeBuffer();
  private conn: GatewayConnection | null = null;
  private lastSeen: number | null = null;
  /** Until READY is out, events are queued here (the snapshot is being read). */
  private queued: Array<() => void> | null = [];
  private seen = 0;
  private settled = 0;
  private point: Checkpoint = { seq: 0, pos: 0, guilds: null };
  private pointDirty = false;
  private tail: Promise<void> = Promise.resolve();
  private pendingWork = 0;

  constructor(
    readonly id: string,
    private who: SessionIdentity,
    readonly intents: number,
    readonly shard: [number, number],
    readonly largeThreshold: number,
  ) {}

  get identity(): SessionIdentity {
    return this.who;
  }

  /** A resume presented another credential of the same user: it is the one re-checked from now. */
  rebind(identity: SessionIdentity): void {
    this.who = identity;
  }

  get seq(): number {
    return this.seqNo;
  }

  get connection(): GatewayConnection | null {
    return this.conn;
  }

  /** When its connection went away (null while one is attached). */
  get disconnectedAt(): number | null {
    return this.lastSeen;
  }

  get starting(): boolean {
    return this.queued !== null;
  }

  /** Whether a bot asked for `intent` (user sessions receive everything they may see). */
  wants(intent: number): boolean {
    return !this.who.bot || (this.intents & intent) !== 0;
  }

  get readsContent(): boolean {
    return this.wants(Intent.MessageContent);
  }

  // --- guilds followed ---------------------------------------------------------------------

  get guildIds(): IterableIterator<string> {
    return this.followed.keys();
  }

  follows(guildId: string): boolean {
    return this.followed.has(guildId);
  }

  /** Holds VIEW_CHANNEL in the guild (undefined: not followed). */
  canView(guildId: string): boolean | undefined {
    return this.followed.get(guildId);
  }

  follow(guildId: string, canView: boolean): void {
    if (this.followed.get(guildId) === canView) return;
    this.followed.set(guildId, canView);
    this.guildsChanged = true;
  }

  unfollow(guildId: string): boolean {
    if (!this.followed.delete(guildId)) return false;
    this.guildsChanged = true;
    return true;
  }

  // --- connection ---------------------------------------------------------------------------

  attach(conn: GatewayConnection): void {
    this.conn = conn;
    this.lastSeen = null;
  }

  /** Its connection went away: resumable for RESUME_WINDOW_MS, with a bounded resume buffer. */
  detach(now = Date.now()): void {
    this.conn = null;
    this.lastSeen = now;
    this.sent.trimForAbsence();
  }

  // --- log positions ------------------------------------------------------------------------

  /** Starts following the log after `pos` (identify, or a takeover from a checkpoint). */
  startAt(pos: number, seq = 0): void {
    this.seen = this.settled = pos;
    this.seqNo = seq;
    this.point = { seq, pos, guilds: null };
  }

  /** First sight of the event at `pos`: false when it was routed to this session already. */
  see(pos: number): boolean {
    if (pos <= this.seen) return false;
    this.seen = pos;
    return true;
  }

  /** Every event up to `pos` has had its effect. */
  settle(pos: number): void {
    this.settled = pos;
    if (this.conn?.open) this.markCheckpoint();
  }

  /** What was dispatched so far went to the attached connection: a takeover can start here. */
  markCheckpoint(): void {
    const guilds = this.guildsChanged ? [...this.followed] : this.point.guilds;
    this.point = { seq: this.seqNo, pos: this.settled, guilds };
    this.guildsChanged = false;
    this.pointDirty = true;
  }

  /** Everything another instance needs to take it over from `checkpoint` (session-store.ts). */
  record(): StoredSession {
    return {
      id: this.id,
      userId: this.who.userId,
      bot: this.who.bot,
      applicationId: this.who.applicationId,
      intents: this.intents,
      shard: this.shard,
      largeThreshold: this.largeThreshold,
      seq: this.point.seq,
      pos: this.point.pos,
      guilds: [...this.followed],
    };
  }

  /** Where another instance would take the session over now. */
  get checkpoint(): Readonly<Checkpoint> {
    return this.point;
  }

  /** The checkpoint to write, when it moved since the last one written (all: write it anyway). */
  takeCheckpoint(all: boolean): Checkpoint | null {
    if (this.starting || !(this.pointDirty || all)) return null;
    const point = this.point;
    this.point = { ...point, guilds: null };
    this.pointDirty = false;
    return point;
  }

  /** A checkpoint could not be written: it is written again next time. */
  checkpointFailed(point: Checkpoint): void {
    this.pointDirty = true;
    this.point.guilds ??= point.guilds;
  }

  // --- ordering -----------------------------------------------------------------------------

  /** Runs `work` after everything queued before it for this session. */
  serial(work: () => Promise<void> | void): void {
    this.pendingWork += 1;
    this.tail = this.tail
      .then(work)
      .catch(() => undefined)
      .finally(() => {
        this.pendingWork -= 1;
      });
  }

  /** Resolves once the work queued so far is done. */
  idle(): Promise<void> {
    return this.tail;
  }

  /** Runs `work` now, or after the asynchronous work still queued for this session. */
  inOrder(work: () => void): void {
    if (this.pendingWork === 0) work();
    else this.serial(work);
  }

  /** Whether asynchronous work is queued (events must then wait their turn). */
  get busy(): boolean {
    return this.pendingWork !== 0;
  }

  /** Runs `work` once READY is out (or now). */
  whenStarted(work: () => void): void {
    if (this.queued) this.queued.push(work);
    else work();
  }

  /**
   * READY is out (or, for a session taken over, `first` replays the log up to where the live
   * events queued meanwhile take over): what was queued runs now, in order, after `first`.
   */
  started(first?: () => void): void {
    const queued = this.queued ?? [];
    this.queued = null;
    first?.();
    for (const run of queued) run();
  }

  // --- dispatches ---------------------------------------------------------------------------

  /**
   * Sends a dispatch (queued while starting), numbering it and keeping it for resume.
   */
  dispatch(t: string, dJson: string): void {
    if (this.queued) {
      this.queued.push(() => this.dispatch(t, dJson));
      return;
    }
    this.seqNo += 1;
    this.sent.push({ s: this.seqNo, t, d: dJson });
    if (this.conn) this.conn.sendDispatch(this.seqNo, t, dJson);
    else this.sent.trimForAbsence();
  }

  /**
   * Sends a dispatch of the session's start (READY and its GUILD_CREATEs), ahead of what is
   * queued, numbered but not kept: a client that lost its connection before it had them starts
   * over (a resume from before them gets op 9, as a takeover elsewhere would), and an idle
   * session keeps none of its start in memory.
   */
  dispatchStart(t: string, dJson: string): void {
    this.seqNo += 1;
    this.conn?.sendDispatch(this.seqNo, t, dJson);
  }

  /**
   * Sends an ephemeral dispatch (typing, presence) without a sequence number: not kept, never
   * replayed, and not counted, so a resume on any instance finds the sequence the log accounts
   * for. Dropped while the session starts or has no connection.
   */
  dispatchEphemeral(t: string, dJson: string): void {
    if (!this.queued) this.conn?.sendDispatch(null, t, dJson);
  }

  /** The client acknowledged everything up to `seq` (heartbeat): no need to keep it. */
  acknowledged(seq: number): void {
    this.sent.acknowledged(seq);
  }

  /** The dispatches after `seq`, or null when some of them are no longer kept. */
  framesAfter(seq: number): ReadonlyArray<Readonly<Sent>> | null {
    if (seq > this.seqNo) return null;
    if (seq === this.seqNo) return [];
    // Nothing kept, or not from seq + 1 on (the start is never kept).
    return this.sent.after(seq);
  }

  /** Frames kept for resume (diagnostics). */
  get buffered(): { frames: number; bytes: number } {
    return this.sent.size;
  }
}
