/** Structural limits of a JSON body, checked on its raw bytes before JSON.parse. */
export interface JsonLimits {
  /** Deepest nesting of arrays and objects (`{}` and `[]` are depth 1). */
  maxDepth: number;
  /** Most items: containers plus array elements and object members (counted as separators). */
  maxItems: number;
}

/** Every body: class-transformer and class-validator recurse once per level. */
export const MAX_JSON_DEPTH = 32;

/**
 * Bodies validated against a DTO: class-transformer copies every item (~5 µs each, unknown fields
 * included, before `whitelist` drops them), so 1 MiB of `[{},{},…]` would cost seconds of CPU.
 * Real request bodies hold tens of items.
 */
export const MAX_DTO_JSON_ITEMS = 10_000;

/** Why a JSON text was refused before parsing; null when it may be parsed. */
export type JsonTextIssue = 'too-deep' | 'too-many-items' | 'lone-surrogate';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const LETTER_U = 0x75;
const LETTER_E = 0x65;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;

/** The value of one hex digit byte, or -1. */
function hexDigit(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  const lower = b | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** The code unit of the `\uXXXX` escape whose `u` is at `at`, or -1 if it is not one. */
function escapedUnit(text: Uint8Array, at: number): number {
  if (text[at] !== LETTER_U || at + 4 >= text.length) return -1;
  let unit = 0;
  for (let k = 1; k <= 4; k++) {
    const d = hexDigit(text[at + k]);
    if (d < 0) return -1;
    unit = (unit << 4) | d;
  }
  return unit;
}

/**
 * One pass over the raw UTF-8 bytes of a JSON text, before JSON.parse builds anything: counts
 * bracket depth and items (brackets and commas) outside strings, and finds `\uD800`-style escapes
 * that are not a surrogate pair (JSON.parse keeps them as lone surrogates, which no UTF-8 consumer —
 * `encodeURIComponent`, validator's `isEmail`, PostgreSQL — accepts). Brackets inside strings never
 * count; multi-byte UTF-8 sequences never contain ASCII bytes, so scanning bytes is exact. Text that
 * is not JSON is left for JSON.parse to refuse. Iterative, allocation-free, O(length).
 */
export function scanJsonText(
  text: Uint8Array,
  limits: JsonLimits,
  found?: JsonTextFindings,
): JsonTextIssue | null {
  const { maxDepth, maxItems } = limits;
  const n = text.length;
  let depth = 0;
  let items = 0;
  let i = 0;
  while (i < n) {
    const b = text[i++];
    if (b === QUOTE) {
      // Inside a string: only `"` (end) and `\` (escape) matter.
      for (;;) {
        if (i >= n) return null;
        const c = text[i++];
        if (c === QUOTE) break;
        if (c !== BACKSLASH) continue;
        const unit = escapedUnit(text, i);
        if (unit < 0xd800 || unit > 0xdfff) {
          i += unit < 0 ? 1 : 5;
          continue;
        }
        // A high surrogate must be followed at once by an escaped low one; a low one alone is lone.
        if (unit >= 0xdc00) return 'lone-surrogate';
        const low = text[i + 5] === BACKSLASH ? escapedUnit(text, i + 6) : -1;
        if (low < 0xdc00 || low > 0xdfff) return 'lone-surrogate';
        i += 11;
      }
    } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      if (++depth > maxDepth) return 'too-deep';
      if (++items > maxItems) return 'too-many-items';
    } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
      depth--;
    } else if (b === COMMA) {
      if (++items > maxItems) return 'too-many-items';
    } else if (b >= DIGIT_0 && b <= DIGIT_9) {
      let j = i;
      while (j < n && text[j] >= DIGIT_0 && text[j] <= DIGIT_9) j++;
      // 16 digits or more may be above 2^53 (JSON.parse would round it): quoteUnsafeIntegers
      // decides exactly.
      if (found && j - i + 1 >= 16) found.longDigitRuns = true;
      i = j;
    }
  }
  return null;
}

/** What scanJsonText noticed besides refusals. */
export interface JsonTextFindings {
  /** A run of 16 or more digits outside strings: maybe an integer JSON.parse would round. */
  longDigitRuns: boolean;
}

/**
 * The JSON text with every integer literal beyond Number.MAX_SAFE_INTEGER written as a string
 * (`{"id": 1234567890123456789}` → `{"id": "1234567890123456789"}`): snowflakes sent as JSON
 * numbers (discord.py sends `message_reference.message_id`, bulk-delete `messages` and op 8's
 * `guild_id` so) keep every digit, as strings, which is how Parley takes snowflakes anyway.
 * Numbers with a fraction or an exponent, and safe integers, are left as they are. Text that is
 * not JSON is left for JSON.parse to refuse.
 */
export function quoteUnsafeIntegers(text: string): string {
  let out = '';
  let from = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i++);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      const start = i;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        const numeric = (d >= DIGIT_0 && d <= DIGIT_9) || d === DOT || d === PLUS || d === MINUS;
        if (numeric || (d | 32) === LETTER_E) i++;
        else break;
      }
      const literal = text.slice(start, i);
      if (/^-?\d{16,}$/.test(literal) && !Number.isSafeInteger(Number(literal))) {
        out += `${text.slice(from, start)}"${literal}"`;
        from = i;
      }
    } else i++;
  }
  return from === 0 ? text : out + text.slice(from);
}
