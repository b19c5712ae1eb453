import { SLACK_PRESET_COLORS } from './colors';
import {
  Embed,
  EmbedField,
  MAX_EMBEDS,
  MessageDraft,
  isEmptyEmbed,
  normalizeDraft,
  normalizeEmbed,
} from '../../guilds/embeds/embed';
import { markdownLink } from './markdown';
import { asArray, asRecord, asString, asText, JsonRecord, own } from './read';

// Transforms Slack incoming-webhook bodies (`text`, `username`, `icon_url`, `attachments`), so
// tools that only speak Slack can post to Parley. `channel`, `icon_emoji`, `mrkdwn`, `mrkdwn_in`
// and `blocks` are accepted and ignored: Parley has no equivalent for them.

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>' };

/** Undoes Slack's three HTML escapes in one pass, so `&amp;lt;` becomes `&lt;`, not `<`. */
export function unescapeSlack(text: string): string {
  return text.replace(/&(amp|lt|gt);/g, (entity) => own(ENTITIES, entity) ?? entity);
}

/**
 * Converts Slack mrkdwn control sequences to Parley Markdown: `<url|label>` → `[label](url)`,
 * `<url>` → `url`, `<@U1|name>` → `@name`, `<#C1|general>` → `#general`, `<!here>` → `@here`,
 * then unescapes `&amp; &lt; &gt;`.
 */
export function slackToMarkdown(text: string): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(/<([^<>|]*)(?:\|([^<>]*))?>/g)) {
    const [whole, target, label] = match;
    out += unescapeSlack(text.slice(last, match.index));
    last = match.index + whole.length;
    const cleanTarget = unescapeSlack(target);
    const cleanLabel = label === undefined ? undefined : unescapeSlack(label);
    const sigil = cleanTarget[0];
    if (sigil === '@' || sigil === '#') {
      out += cleanLabel ? `${sigil}${cleanLabel.replace(/^[@#]/, '')}` : cleanTarget;
    } else if (sigil === '!') {
      // `<!here>`, `<!channel>`, `<!date^…|fallback>`: the label, when given, is Slack's fallback.
      out += cleanLabel ?? `@${cleanTarget.slice(1).split('^', 1)[0]}`;
    } else if (cleanLabel && cleanLabel !== cleanTarget) {
      out += markdownLink(cleanLabel, cleanTarget);
    } else {
      out += cleanTarget;
    }
  }
  return out + unescapeSlack(text.slice(last));
}

/** `#rrggbb`, `rrggbb` or a Slack preset (`good`, `warning`, `danger`) to a 0xRRGGBB integer. */
export function parseSlackColor(value: unknown): number | undefined {
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 0 && value <= 0xffffff ? value : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const key = value.trim().toLowerCase();
  if (Object.prototype.hasOwnProperty.call(SLACK_PRESET_COLORS, key)) {
    return own(SLACK_PRESET_COLORS, key);
  }
  const hex = /^#?([0-9a-f]{6})$/.exec(key);
  return hex ? parseInt(hex[1], 16) : undefined;
}

/** Slack `ts` (epoch seconds, number or numeric string like "1503435956.000247") to ISO. */
export function slackTimestamp(value: unknown): string | undefined {
  let seconds: number | undefined;
  if (typeof value === 'number') seconds = value;
  else if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value))
    seconds = Number(value);
  if (seconds === undefined || !Number.isFinite(seconds)) return undefined;
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function mrkdwn(value: unknown): string | undefined {
  const text = asText(value);
  return text === undefined ? undefined : slackToMarkdown(text);
}

// Titles, names and footers are plain text in Slack; only the escapes need undoing.
function plain(value: unknown): string | undefined {
  const text = asText(value);
  return text === undefined ? undefined : unescapeSlack(text);
}

function attachmentFields(value: unknown): EmbedField[] | undefined {
  const list = asArray(value);
  if (!list) return undefined;
  const out: EmbedField[] = [];
  for (const item of list) {
    const f = asRecord(item);
    if (!f) continue;
    out.push({
      name: plain(f.title) ?? '',
      value: mrkdwn(f.value) ?? '',
      inline: f.short === true,
    });
  }
  return out;
}

function attachmentEmbed(a: JsonRecord): Embed {
  const body = [mrkdwn(a.pretext), mrkdwn(a.text)].filter(Boolean).join('\n');
  const authorName = plain(a.author_name);
  const footer = plain(a.footer);
  const image = asText(a.image_url);
  const thumb = asText(a.thumb_url);
  return {
    title: plain(a.title),
    url: asText(a.title_link),
    description: body || mrkdwn(a.fallback),
    color: parseSlackColor(a.color),
    timestamp: slackTimestamp(a.ts),
    author: authorName
      ? { name: authorName, url: asText(a.author_link), icon_url: asText(a.author_icon) }
      : undefined,
    footer: footer ? { text: footer, icon_url: asText(a.footer_icon) } : undefined,
    image: image ? { url: image } : undefined,
    thumbnail: thumb ? { url: thumb } : undefined,
    fields: attachmentFields(a.fields),
  };
}

/**
 * Renders a Slack incoming-webhook body. Returns null only when nothing would be posted (no
 * content and no embeds). Never throws.
 */
export function transformChatCompat(payload: unknown): MessageDraft | null {
  try {
    const p = asRecord(payload);
    if (!p) return null;
    const embeds: Embed[] = [];
    for (const item of asArray(p.attachments) ?? []) {
      if (embeds.length >= MAX_EMBEDS) break;
      const a = asRecord(item);
      if (!a) continue;
      // Empty attachments must not use up one of the ten slots.
      const embed = normalizeEmbed(attachmentEmbed(a));
      if (!isEmptyEmbed(embed)) embeds.push(embed);
    }
    return normalizeDraft({
      content: mrkdwn(p.text),
      username: asString(p.username),
      avatar_url: asText(p.icon_url),
      embeds,
    });
  } catch {
    // Untrusted input must never turn into a 500.
    return null;
  }
}
