import { imageSize } from 'image-size';
import { filetypemime } from 'magic-bytes.js';

/** How many of a file's first bytes sniffing and image headers read. */
export const SNIFF_BYTES = 64 * 1024;

/** Media types served `inline`; everything else (SVG and HTML included) is a download. */
const INLINE_IMAGES = new Set([
  'image/png',
  'image/apng',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
]);

/** Whether a browser may show the file in place (raster images, audio, video). */
export function servedInline(contentType: string): boolean {
  return (
    INLINE_IMAGES.has(contentType) ||
    contentType.startsWith('audio/') ||
    contentType.startsWith('video/')
  );
}

/**
 * Markup a browser would render as a page or a document (WHATWG MIME Sniffing's HTML patterns,
 * plus SVG and XML), looked for after leading whitespace and a byte-order mark.
 */
const HTML_TAGS = [
  '!doctype html',
  'html',
  'head',
  'script',
  'iframe',
  'h1',
  'div',
  'font',
  'table',
  'a',
  'style',
  'title',
  'b',
  'body',
  'br',
  'p',
  '!--',
];

function markupType(head: Buffer): string | null {
  const text = head
    .subarray(0, 1024)
    .toString('latin1')
    .replace(/^\xef\xbb\xbf/, '')
    .trimStart()
    .toLowerCase();
  if (!text.startsWith('<')) return null;
  if (/^<svg[\s>]/.test(text) || (text.startsWith('<?xml') && text.includes('<svg'))) {
    return 'image/svg+xml';
  }
  if (text.startsWith('<?xml')) return 'text/xml';
  for (const tag of HTML_TAGS) {
    if (!text.startsWith(`<${tag}`)) continue;
    const next = text.charAt(tag.length + 1);
    if (tag === '!--' || next === '' || next === '>' || /\s/.test(next)) return 'text/html';
  }
  return null;
}

/** Whether the bytes look like text (no control bytes but tab, newlines, form feed, escape). */
function looksLikeText(head: Buffer): boolean {
  for (const b of head) {
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d && b !== 0x1b) {
      return false;
    }
  }
  return true;
}

/**
 * A file's media type from its first bytes (never from its name or the uploader's word): a known
 * binary signature (magic-bytes.js), else markup (HTML, SVG, XML), else text, else
 * `application/octet-stream`.
 */
export function sniffContentType(head: Buffer): string {
  if (head.length === 0) return 'application/octet-stream';
  const markup = markupType(head);
  if (markup) return markup;
  const [known] = filetypemime(new Uint8Array(head.buffer, head.byteOffset, head.length));
  if (known) return known === 'image/apng' ? 'image/png' : known;
  if (looksLikeText(head)) {
    return new TextDecoder('utf-8', { fatal: false }).decode(head).includes('\ufffd')
      ? 'text/plain'
      : 'text/plain; charset=utf-8';
  }
  return 'application/octet-stream';
}

/** An image's pixel size from its header (no decoding), or null. */
export function imageDimensions(
  head: Buffer,
  contentType: string,
): { width: number; height: number } | null {
  if (!contentType.startsWith('image/') || contentType === 'image/svg+xml') return null;
  try {
    const { width, height } = imageSize(new Uint8Array(head.buffer, head.byteOffset, head.length));
    return width > 0 && height > 0 ? { width, height } : null;
  } catch {
    return null;
  }
}
