// Length limits of a Parley message and its embeds, counted in UTF-16 code units (what
// `String#length` reports and what the message validator enforces).
export const EMBED_LIMITS = {
  title: 256,
  description: 4096,
  fieldName: 256,
  fieldValue: 1024,
  author: 256,
  footer: 2048,
  content: 2000,
  fields: 25,
} as const;

const ELLIPSIS = '…';

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

// Cuts `text` to at most `max` UTF-16 code units, ending with `…` when anything was removed.
// Never splits a surrogate pair: a lone half would render as U+FFFD and can fail JSON/DB encoding.
export function truncate(text: string, max: number): string {
  const limit = Number.isFinite(max) ? Math.floor(max) : 0;
  if (text.length <= limit) return text;
  if (limit <= 0) return '';
  // The ellipsis is one code unit, so it always fits in the last slot.
  let cut = limit - ELLIPSIS.length;
  if (
    cut > 0 &&
    isHighSurrogate(text.charCodeAt(cut - 1)) &&
    isLowSurrogate(text.charCodeAt(cut))
  ) {
    cut -= 1;
  }
  return text.slice(0, cut) + ELLIPSIS;
}
