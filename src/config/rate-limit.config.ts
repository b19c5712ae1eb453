/** How a bucket tells callers apart. */
export type BucketTracker = 'identity' | 'webhook' | 'admin-key';

export interface BucketDefinition {
  limit: number;
  ttlMs: number;
  tracker: BucketTracker;
}

/**
 * Rate-limit buckets (ARCHITECTURE.md §5). Routes name a bucket with `@RateLimit('auth:login')`;
 * `global` applies to every route that is not exempt. Values can be overridden with
 * RATE_LIMIT_OVERRIDES="bucket=limit/window,…" — never by literals in code.
 */
export const DEFAULT_BUCKETS = {
  global: { limit: 50, ttlMs: 1_000, tracker: 'identity' },
  discovery: { limit: 60, ttlMs: 60_000, tracker: 'identity' },
  'auth:login': { limit: 10, ttlMs: 10_000, tracker: 'identity' },
  'auth:register': { limit: 10, ttlMs: 10_000, tracker: 'identity' },
  'auth:login:mfa': { limit: 5, ttlMs: 60_000, tracker: 'identity' },
  'auth:forgot': { limit: 5, ttlMs: 60_000, tracker: 'identity' },
  'auth:verify': { limit: 10, ttlMs: 60_000, tracker: 'identity' },
  'auth:sessions': { limit: 40, ttlMs: 10_000, tracker: 'identity' },
  'oauth:token': { limit: 120, ttlMs: 60_000, tracker: 'identity' },
  'oauth:introspect': { limit: 120, ttlMs: 60_000, tracker: 'identity' },
  'channel:typing': { limit: 5, ttlMs: 5_000, tracker: 'identity' },
  'webhook:execute': { limit: 60, ttlMs: 60_000, tracker: 'webhook' },
  'webhook:repohost': { limit: 200, ttlMs: 60_000, tracker: 'webhook' },
  'webhook:errortracker': { limit: 200, ttlMs: 60_000, tracker: 'webhook' },
  admin: { limit: 200, ttlMs: 60_000, tracker: 'admin-key' },
  'admin:bans': { limit: 60, ttlMs: 60_000, tracker: 'admin-key' },
  'admin:bulk': { limit: 20, ttlMs: 60_000, tracker: 'admin-key' },
} satisfies Record<string, BucketDefinition>;

export type BucketName = keyof typeof DEFAULT_BUCKETS;
export type BucketTable = Record<BucketName, BucketDefinition>;

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** Applies "bucket=limit/window" overrides; unknown bucket names are a configuration error. */
export function resolveBuckets(overrides: string | undefined): BucketTable {
  const table: BucketTable = structuredClone(DEFAULT_BUCKETS);
  if (!overrides) return table;
  for (const part of overrides.split(',')) {
    const m = /^\s*([a-z0-9:_-]+)=(\d+)\/(\d+)(ms|s|m|h)\s*$/.exec(part);
    if (!m) throw new Error(`RATE_LIMIT_OVERRIDES: cannot parse "${part}"`);
    const name = m[1] as BucketName;
    if (!(name in table)) throw new Error(`RATE_LIMIT_OVERRIDES: unknown bucket "${m[1]}"`);
    table[name] = {
      ...table[name],
      limit: Number(m[2]),
      ttlMs: Number(m[3]) * UNIT_MS[m[4] as keyof typeof UNIT_MS],
    };
  }
  return table;
}
