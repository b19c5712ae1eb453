import { fieldError, type FieldError } from '../../../common/errors/api-error';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { hasVisibleCharacter } from '../../../common/text/visible-text';
import { EMBED_LIMITS, truncate } from './truncate';

export interface EmbedAuthor {
  name: string;
  url?: string;
  icon_url?: string;
}

export interface EmbedFooter {
  text: string;
  icon_url?: string;
}

export interface EmbedField {
  name: string;
  value: string;
  inline: boolean;
}

export interface Embed {
  title?: string;
  description?: string;
  url?: string;
  color?: number;
  /** ISO 8601 */
  timestamp?: string;
  author?: EmbedAuthor;
  footer?: EmbedFooter;
  image?: { url: string };
  thumbnail?: { url: string };
  fields?: EmbedField[];
}

export interface MessageDraft {
  content?: string;
  username?: string;
  avatar_url?: string;
  embeds: Embed[];
  /** A plain execute's `attachments` (Discord's partial attachments naming its files). */
  attachments?: Array<{ id: string | number; filename?: string; description?: string }>;
}

/** Most embeds one message may carry. */
export const MAX_EMBEDS = 10;

/** Longest display-name override a webhook message may carry. */
export const MAX_USERNAME = 80;

// Discord-style clients reject fields with an empty side; a zero-width space keeps the other side.
const BLANK_FIELD_SIDE = '\u200b';

function text(value: string | undefined, max: number): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  return truncate(value, max);
}

/**
 * Which schemes a URL field takes (Discord's rules): links only `http(s)`; images and icons also
 * `attachment://<file>`. Anything else — `javascript:`, `data:`, `file:` — would become a link or
 * an image source in every client that renders the message.
 */
export type UrlUse = 'link' | 'media';

const SCHEMES: Record<UrlUse, readonly string[]> = {
  link: ['http:', 'https:'],
  media: ['http:', 'https:', 'attachment:'],
};

/** Why a URL may not be stored (null: it may). */
export function urlProblem(value: string, use: UrlUse): FieldErrorCode | null {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return FieldErrorCode.UrlTypeInvalidUrl;
  }
  if (!SCHEMES[use].includes(url.protocol)) return FieldErrorCode.UrlTypeInvalidScheme;
  if (url.protocol !== 'attachment:' && url.hostname === '')
    return FieldErrorCode.UrlTypeInvalidUrl;
  return null;
}

/** A URL field kept only when it is a URL of an allowed scheme (foreign payloads: dropped otherwise). */
function link(value: string | undefined, use: UrlUse): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  return urlProblem(value, use) === null ? value.trim() : undefined;
}

/**
 * The URL fields of a message that Parley would not store, as field errors (`embeds.0.url`,
 * `avatar_url`, …) for the routes whose senders are told (posting a message, the Discord-style
 * execute); foreign formats drop such URLs instead (normalizeEmbed).
 */
export function urlErrors(embeds: readonly Embed[], avatarUrl?: string): FieldError[] {
  const errors: FieldError[] = [];
  const check = (path: string, value: unknown, use: UrlUse) => {
    if (typeof value !== 'string' || value.trim() === '') return;
    const problem = urlProblem(value, use);
    if (problem) errors.push(fieldError(path, problem));
  };
  embeds.forEach((embed, i) => {
    const at = `embeds.${i}`;
    check(`${at}.url`, embed?.url, 'link');
    check(`${at}.author.url`, embed?.author?.url, 'link');
    check(`${at}.author.icon_url`, embed?.author?.icon_url, 'media');
    check(`${at}.footer.icon_url`, embed?.footer?.icon_url, 'media');
    check(`${at}.image.url`, embed?.image?.url, 'media');
    check(`${at}.thumbnail.url`, embed?.thumbnail?.url, 'media');
  });
  check('avatar_url', avatarUrl, 'media');
  return errors;
}

function normalizeFields(fields: EmbedField[] | undefined): EmbedField[] | undefined {
  if (!Array.isArray(fields)) return undefined;
  const out: EmbedField[] = [];
  for (const field of fields) {
    if (out.length >= EMBED_LIMITS.fields) break;
    const name = text(field?.name, EMBED_LIMITS.fieldName);
    const value = text(field?.value, EMBED_LIMITS.fieldValue);
    if (name === undefined && value === undefined) continue;
    out.push({
      name: name ?? BLANK_FIELD_SIDE,
      value: value ?? BLANK_FIELD_SIDE,
      inline: field.inline === true,
    });
  }
  return out.length > 0 ? out : undefined;
}

/**
 * Applies EMBED_LIMITS and removes empty or undefined keys, so the result can be stored and
 * compared as-is (`toEqual` in tests, no `undefined` noise in JSON).
 */
export function normalizeEmbed(embed: Embed): Embed {
  const out: Embed = {};
  const title = text(embed.title, EMBED_LIMITS.title);
  if (title !== undefined) out.title = title;
  const description = text(embed.description, EMBED_LIMITS.description);
  if (description !== undefined) out.description = description;
  const url = link(embed.url, 'link');
  if (url !== undefined) out.url = url;
  // Colours are 24-bit RGB; anything else would be rejected downstream.
  if (Number.isInteger(embed.color) && embed.color! >= 0 && embed.color! <= 0xffffff) {
    out.color = embed.color;
  }
  if (typeof embed.timestamp === 'string' && !Number.isNaN(Date.parse(embed.timestamp))) {
    out.timestamp = embed.timestamp;
  }
  const authorName = text(embed.author?.name, EMBED_LIMITS.author);
  if (authorName !== undefined) {
    out.author = { name: authorName };
    const authorUrl = link(embed.author?.url, 'link');
    if (authorUrl !== undefined) out.author.url = authorUrl;
    const authorIcon = link(embed.author?.icon_url, 'media');
    if (authorIcon !== undefined) out.author.icon_url = authorIcon;
  }
  const footerText = text(embed.footer?.text, EMBED_LIMITS.footer);
  if (footerText !== undefined) {
    out.footer = { text: footerText };
    const footerIcon = link(embed.footer?.icon_url, 'media');
    if (footerIcon !== undefined) out.footer.icon_url = footerIcon;
  }
  const image = link(embed.image?.url, 'media');
  if (image !== undefined) out.image = { url: image };
  const thumbnail = link(embed.thumbnail?.url, 'media');
  if (thumbnail !== undefined) out.thumbnail = { url: thumbnail };
  const fields = normalizeFields(embed.fields);
  if (fields !== undefined) out.fields = fields;
  return out;
}

/** True when an embed would render nothing visible (colour, url or timestamp alone show nothing). */
export function isEmptyEmbed(embed: Embed): boolean {
  return (
    embed.title === undefined &&
    embed.description === undefined &&
    embed.author === undefined &&
    embed.footer === undefined &&
    embed.image === undefined &&
    embed.thumbnail === undefined &&
    embed.fields === undefined
  );
}

/**
 * Normalises every embed, drops the empty ones, keeps at most MAX_EMBEDS and truncates the
 * content. Returns null when nothing would be posted.
 */
export function normalizeDraft(draft: MessageDraft): MessageDraft | null {
  const embeds = draft.embeds
    .map(normalizeEmbed)
    .filter((embed) => !isEmptyEmbed(embed))
    .slice(0, MAX_EMBEDS);
  const content = text(draft.content, EMBED_LIMITS.content);
  if (content === undefined && embeds.length === 0) return null;
  const out: MessageDraft = { embeds };
  if (content !== undefined) out.content = content;
  // A name override that shows nothing (bidi or zero-width characters only) is no override.
  const username = text(draft.username, MAX_USERNAME);
  if (username !== undefined && hasVisibleCharacter(username)) out.username = username.trim();
  const avatar = link(draft.avatar_url, 'media');
  if (avatar !== undefined) out.avatar_url = avatar;
  return out;
}
