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

function link(value: string | undefined): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
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
  const url = link(embed.url);
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
    const authorUrl = link(embed.author?.url);
    if (authorUrl !== undefined) out.author.url = authorUrl;
    const authorIcon = link(embed.author?.icon_url);
    if (authorIcon !== undefined) out.author.icon_url = authorIcon;
  }
  const footerText = text(embed.footer?.text, EMBED_LIMITS.footer);
  if (footerText !== undefined) {
    out.footer = { text: footerText };
    const footerIcon = link(embed.footer?.icon_url);
    if (footerIcon !== undefined) out.footer.icon_url = footerIcon;
  }
  const image = link(embed.image?.url);
  if (image !== undefined) out.image = { url: image };
  const thumbnail = link(embed.thumbnail?.url);
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
  const username = text(draft.username, MAX_USERNAME);
  if (username !== undefined) out.username = username.trim();
  const avatar = link(draft.avatar_url);
  if (avatar !== undefined) out.avatar_url = avatar;
  return out;
}
