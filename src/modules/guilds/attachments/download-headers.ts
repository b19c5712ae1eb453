import type { ByteRange } from '../../../infra/storage/blob-storage';

/**
 * The headers of every answer that carries (or describes) an attachment's bytes: whatever a file
 * holds, a browser neither guesses another type (`nosniff`) nor runs it as a page of the API's
 * origin — no script, no plugin, no form, no same-origin access, even when opened directly
 * (`default-src 'none'; sandbox`).
 */
export const DOWNLOAD_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
};

/** What a `Range` header asks of a file of `size` bytes (RFC 9110 §14). */
export type RangeRequest =
  { kind: 'all' } | { kind: 'range'; range: ByteRange } | { kind: 'unsatisfiable' };

const BYTES_UNIT = /^bytes=/i;
const RANGE_SPEC = /^\s*(\d*)\s*-\s*(\d*)\s*$/;

/**
 * One byte range of a file of `size` bytes, from a `Range` header: `bytes=a-b`, `bytes=a-` (to the
 * end) or `bytes=-n` (the last n). The whole file when there is none, when it names another unit
 * (which RFC 9110 says to ignore) or several ranges (RFC 9110 lets a server answer those with the
 * whole file: multipart/byteranges is not worth its cost here). Unsatisfiable (416) when the range
 * starts past the end, is malformed or reversed, or the file is empty.
 */
export function requestedRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined || !BYTES_UNIT.test(header)) return { kind: 'all' };
  const spec = header.slice('bytes='.length);
  if (spec.includes(',')) return { kind: 'all' };
  const m = RANGE_SPEC.exec(spec);
  if (!m || (m[1] === '' && m[2] === '') || size === 0) return { kind: 'unsatisfiable' };
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(m[1]);
  const last = m[2] === '' ? size - 1 : Number(m[2]);
  if (start >= size || last < start) return { kind: 'unsatisfiable' };
  return { kind: 'range', range: { start, end: Math.min(last, size - 1) } };
}

/** Strips a weak validator's `W/`: If-None-Match compares weakly (RFC 9110 §13.1.2). */
const opaque = (tag: string): string => tag.trim().replace(/^W\//, '');

/** Whether `If-None-Match` names the file's current ETag (or `*`): answered 304. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => opaque(tag) === etag);
}

/**
 * Whether a `Range` may be honoured under `If-Range` (RFC 9110 §13.1.5): only with no `If-Range`
 * or the file's strong ETag exactly; a date or another tag gets the whole file (no Last-Modified
 * is sent, so no date can match).
 */
export function rangeAllowed(header: string | undefined, etag: string): boolean {
  return header === undefined || header.trim() === etag;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** RFC 8187's attr-char: what `filename*` may carry unescaped. */
const escapeExtended = (name: string): string =>
  encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/**
 * `Content-Disposition` (RFC 6266) for a file: `inline` or `attachment`, the name in UTF-8
 * (`filename*=UTF-8''…`, RFC 8187) and an ASCII fallback for older clients in which anything that
 * is not printable ASCII — and `"`, `\` and `%`, which some clients unescape — is `_`.
 */
export function contentDisposition(kind: 'inline' | 'attachment', filename: string): string {
  // A lone surrogate would make encodeURIComponent throw (a name is stored as UTF-8, which has
  // none; this is for safety).
  const wellFormed = filename.replace(LONE_SURROGATE, '\ufffd');
  const ascii = wellFormed.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${escapeExtended(wellFormed)}`;
}

/** The file's strong ETag: an attachment never changes, so its id and size name its bytes. */
export function attachmentEtag(attachmentId: string, size: number): string {
  return `"${attachmentId}-${size}"`;
}
