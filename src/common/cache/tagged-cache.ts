interface Entry<T> {
  value: T;
  expiresAt: number;
  tags: string[];
}

const TOMBSTONE_MS = 2_000;
const TOMBSTONE_MAX = 10_000;

/**
 * A bounded in-process cache whose entries carry tags (`s:<session id>`, `u:<user id>`, …) and are
 * dropped when a database trigger announces a change to what a tag names (LISTEN/NOTIFY, on every
 * instance). Correctness rests on that invalidation, never on the TTL. While notifications cannot
 * be received the cache is off (and empty). The oldest entry goes first when it is full.
 */
export class TaggedCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly byTag = new Map<string, Set<string>>();
  private enabled = false;
  /** Tags invalidated in the last TOMBSTONE_MS: nothing carrying them is cached meanwhile. */
  private readonly tombstones = new Map<string, number>();
  /** Bumped by every invalidation: a lookup that started before one must not be cached. */
  private generation = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get currentGeneration(): number {
    return this.generation;
  }

  get(key: string, now = Date.now()): T | undefined {
    if (!this.enabled) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.delete(key, entry);
      return undefined;
    }
    return entry.value;
  }

  /**
   * Caches what a lookup that began at `generation` found (not if an invalidation came in
   * meanwhile). `expiresAt` caps the TTL (e.g. a token's own expiry).
   */
  set(
    key: string,
    value: T,
    tags: string[],
    generation: number,
    now = Date.now(),
    expiresAt = Infinity,
  ): void {
    if (!this.enabled || generation !== this.generation) return;
    if (this.tombstones.size > 0 && tags.some((t) => this.isTombstoned(t, now))) return;
    const old = this.entries.get(key);
    if (old) this.delete(key, old);
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next().value as string;
      this.delete(oldest, this.entries.get(oldest)!);
    }
    this.entries.set(key, { value, expiresAt: Math.min(now + this.ttlMs, expiresAt), tags });
    for (const tag of tags) {
      let keys = this.byTag.get(tag);
      if (!keys) this.byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
  }

  /** Drops every entry carrying `tag` (a notification payload such as `s:<session id>`). */
  invalidate(tag: string, now = Date.now()): void {
    this.generation++;
    // A change made inside a transaction is announced here before it commits: for a moment, a
    // lookup may still read the old row. Refuse to cache that tag until the change is surely
    // visible (and the database's own notification has had time to arrive).
    if (this.tombstones.size >= TOMBSTONE_MAX) this.pruneTombstones(now);
    this.tombstones.set(tag, now + TOMBSTONE_MS);
    const keys = this.byTag.get(tag);
    if (!keys) return;
    for (const key of [...keys]) {
      const entry = this.entries.get(key);
      if (entry) this.delete(key, entry);
    }
  }

  /** On when invalidations are being received; turning it either way empties the cache. */
  setEnabled(enabled: boolean): void {
    this.generation++;
    this.entries.clear();
    this.byTag.clear();
    this.enabled = enabled;
  }

  private isTombstoned(tag: string, now: number): boolean {
    const until = this.tombstones.get(tag);
    if (until === undefined) return false;
    if (until > now) return true;
    this.tombstones.delete(tag);
    return false;
  }

  private pruneTombstones(now: number): void {
    for (const [tag, until] of this.tombstones) if (until <= now) this.tombstones.delete(tag);
    if (this.tombstones.size >= TOMBSTONE_MAX) this.tombstones.clear();
  }

  private delete(key: string, entry: Entry<T>): void {
    this.entries.delete(key);
    for (const tag of entry.tags) {
      const keys = this.byTag.get(tag);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) this.byTag.delete(tag);
    }
  }
}
