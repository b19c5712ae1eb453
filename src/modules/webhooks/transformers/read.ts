// Tolerant readers for untrusted JSON: each returns undefined instead of throwing when the value
// has the wrong type, so transformers can use plain optional chaining on foreign payloads.

export type JsonRecord = Record<string, unknown>;

export function asRecord(value: unknown): JsonRecord | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as JsonRecord)
    : undefined;
}

export function asArray(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

/** Strings as-is; numbers (even ones JSON.parse rounded past 2^53) and bigints as written. */
export function asString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return value.toString();
  return undefined;
}

/** Like asString but treats blank strings as absent, which is what display code wants. */
export function asText(value: unknown): string | undefined {
  const s = asString(value);
  return s !== undefined && s.trim() !== '' ? s : undefined;
}

/** Reads a nested path, e.g. `at(payload, 'data', 'issue', 'title')`. */
export function at(value: unknown, ...path: (string | number)[]): unknown {
  let current: unknown = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/** First non-blank text among the candidates. */
export function firstText(...values: unknown[]): string | undefined {
  for (const value of values) {
    const s = asText(value);
    if (s !== undefined) return s;
  }
  return undefined;
}

/**
 * `table[key]` for a key that came from a payload, own properties only: a plain object's lookup
 * would also find `constructor`, `toString` or `__proto__` of Object.prototype.
 */
export function own<T>(table: Readonly<Record<string, T>>, key: string | undefined): T | undefined {
  return key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}
