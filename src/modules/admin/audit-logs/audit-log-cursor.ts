import { parseSnowflake } from '../../../common/snowflake/snowflake';

/**
 * Page cursors, opaque to clients: the list walks ids downwards (keyset: `id < last id`, ids are
 * time-ordered snowflakes, so a page never repeats or skips an entry written meanwhile); ranked
 * search has no stable key to continue from, so its cursor is the offset of the next page.
 */
export type AuditCursor = { kind: 'list'; beforeId: string } | { kind: 'search'; offset: number };

export function encodeAuditCursor(cursor: AuditCursor): string {
  const raw = cursor.kind === 'list' ? `l.${cursor.beforeId}` : `s.${cursor.offset}`;
  return Buffer.from(raw, 'utf8').toString('base64url');
}

/** The cursor, or null when it is not one this API handed out. */
export function decodeAuditCursor(text: string): AuditCursor | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) return null;
  const raw = Buffer.from(text, 'base64url').toString('utf8');
  const m = /^([ls])\.(\d{1,20})$/.exec(raw);
  if (!m) return null;
  if (m[1] === 'l') {
    const id = parseSnowflake(m[2]);
    return id ? { kind: 'list', beforeId: id } : null;
  }
  const offset = Number(m[2]);
  return Number.isSafeInteger(offset) ? { kind: 'search', offset } : null;
}
