/** Parley's epoch (2015-01-01T00:00:00Z), as in ARCHITECTURE.md §5. */
export const SNOWFLAKE_EPOCH = 1420070400000n;
const MAX_SEQUENCE = 0xfffn;

/**
 * Snowflake ids: `(ms since epoch) << 22 | worker_id << 12 | sequence`.
 * Monotonic per generator; up to 4096 ids per millisecond, then it waits for the next one.
 */
export class SnowflakeGenerator {
  private lastMs = -1n;
  private sequence = 0n;
  private readonly worker: bigint;

  constructor(
    workerId: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(workerId) || workerId < 0 || workerId > 1023) {
      throw new RangeError(`worker id must be an integer in 0..1023, got ${workerId}`);
    }
    this.worker = BigInt(workerId);
  }

  nextBigInt(): bigint {
    let ms = BigInt(this.now()) - SNOWFLAKE_EPOCH;
    // A clock that steps backwards must not produce a smaller (or repeated) id.
    if (ms < this.lastMs) ms = this.lastMs;
    if (ms === this.lastMs) {
      this.sequence = (this.sequence + 1n) & MAX_SEQUENCE;
      if (this.sequence === 0n) {
        ms = this.lastMs + 1n;
        while (BigInt(this.now()) - SNOWFLAKE_EPOCH < ms) {
          /* wait for the next millisecond: 4096 ids in one ms is the design's ceiling */
        }
      }
    } else {
      this.sequence = 0n;
    }
    this.lastMs = ms;
    return (ms << 22n) | (this.worker << 12n) | this.sequence;
  }

  /** A new id, serialized as a decimal string (ids travel as strings on the wire). */
  next(): string {
    return this.nextBigInt().toString();
  }
}

export interface DecodedSnowflake {
  timestamp: Date;
  workerId: number;
  sequence: number;
}

export function decodeSnowflake(id: string | bigint): DecodedSnowflake {
  const v = BigInt(id);
  return {
    timestamp: new Date(Number((v >> 22n) + SNOWFLAKE_EPOCH)),
    workerId: Number((v >> 12n) & 0x3ffn),
    sequence: Number(v & MAX_SEQUENCE),
  };
}

const SNOWFLAKE_RE = /^\d{1,20}$/;
const MAX_SNOWFLAKE = (1n << 63n) - 1n;

/** Accepts a string or a safe integer; returns the canonical string or null when it is not a snowflake. */
export function parseSnowflake(input: unknown): string | null {
  if (typeof input === 'number') {
    if (!Number.isSafeInteger(input) || input < 0) return null;
    return String(input);
  }
  if (typeof input !== 'string' || !SNOWFLAKE_RE.test(input)) return null;
  const v = BigInt(input);
  return v <= MAX_SNOWFLAKE ? v.toString() : null;
}
