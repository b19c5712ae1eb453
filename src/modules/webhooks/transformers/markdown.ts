import { urlProblem } from '../../guilds/embeds/embed';

/** A `mailto:` link opens the mail client, nothing more; Slack senders use them. */
const MAILTO = /^mailto:[^\s]+$/i;

/**
 * A Markdown link `[label](url)` for text a client renders — or just the label when the URL is
 * neither an http(s) URL nor a `mailto:`, so a payload cannot plant a `javascript:` or `file:`
 * link in a message. Brackets in the label and parentheses or spaces in the URL would end the
 * link early: escaped.
 */
export function markdownLink(label: string, url: string): string {
  const safeLabel = label.replace(/([[\]])/g, '\\$1');
  if (urlProblem(url, 'link') !== null && !MAILTO.test(url.trim())) return safeLabel;
  const safeUrl = url.trim().replace(/\(/g, '%28').replace(/\)/g, '%29').replace(/ /g, '%20');
  return `[${safeLabel}](${safeUrl})`;
}
