import { COLORS } from './colors';
import { Embed, EmbedField, MessageDraft, normalizeDraft } from '../../guilds/embeds/embed';
import { asArray, asRecord, asText, at, firstText, JsonRecord, own } from './read';
import { truncate } from '../../guilds/embeds/truncate';

// Transforms Sentry-format deliveries: the integration platform body `{action, data, actor}`
// (resource from the `Sentry-Hook-Resource` header) and the legacy flat webhook-plugin body.

const LEVEL_COLORS: Record<string, number> = {
  fatal: COLORS.fatal,
  error: COLORS.error,
  warning: COLORS.warning,
  info: COLORS.info,
  debug: COLORS.debug,
};

// Culprits are code locations; long ones are noise once they pass a line or two.
const CULPRIT_MAX = 300;
const COMMENT_MAX = 1000;

/** Embed colour for a Sentry level; events without one are errors in Sentry's own model. */
export function levelColor(level: unknown): number {
  const key = (asText(level) ?? 'error').toLowerCase();
  return own(LEVEL_COLORS, key === 'critical' ? 'fatal' : key) ?? COLORS.error;
}

function field(name: string, value: unknown, inline = true): EmbedField | undefined {
  const text = asText(value);
  return text === undefined ? undefined : { name, value: text, inline };
}

function fields(...list: (EmbedField | undefined)[]): EmbedField[] {
  return list.filter((f): f is EmbedField => f !== undefined);
}

// Sentry sends tags as `[key, value]` pairs, or `{key, value}` objects on newer events.
function tag(tags: unknown, key: string): string | undefined {
  for (const entry of asArray(tags) ?? []) {
    if (Array.isArray(entry) && entry[0] === key) return asText(entry[1]);
    if (at(entry, 'key') === key) return asText(at(entry, 'value'));
  }
  return undefined;
}

function isoTime(value: unknown): string | undefined {
  // Sentry uses ISO strings in most places and epoch seconds in `timestamp` on events.
  const date =
    typeof value === 'number' ? new Date(value * 1000) : new Date(asText(value) ?? Number.NaN);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function culpritLine(culprit: unknown): string | undefined {
  const text = asText(culprit);
  return text === undefined
    ? undefined
    : '`' + truncate(text.replace(/`/g, "'"), CULPRIT_MAX) + '`';
}

function actorAuthor(actor: unknown): Embed['author'] {
  const name = asText(at(actor, 'name'));
  return name === undefined ? undefined : { name };
}

function projectName(project: unknown): string | undefined {
  return firstText(at(project, 'name'), at(project, 'slug'));
}

function prefixed(project: string | undefined, title: string): string {
  return project ? `[${project}] ${title}` : title;
}

const ISSUE_VERBS: Record<string, string> = {
  created: 'New issue',
  resolved: 'Issue resolved',
  assigned: 'Issue assigned',
  ignored: 'Issue ignored',
  archived: 'Issue archived',
  unresolved: 'Issue unresolved',
};

function renderIssue(action: string | undefined, data: JsonRecord): Embed | null {
  const issue = asRecord(data.issue);
  if (!issue) return null;
  const verb = own(ISSUE_VERBS, action) ?? (action ? `Issue ${action}` : 'Issue');
  const title = asText(issue.title) ?? asText(issue.shortId) ?? 'Untitled issue';
  const assignee = firstText(at(issue, 'assignedTo', 'name'), at(issue, 'assignedTo', 'email'));
  return {
    title: prefixed(projectName(issue.project), `${verb}: ${title}`),
    url: firstText(issue.web_url, issue.permalink),
    description: [
      culpritLine(issue.culprit),
      action === 'assigned' && assignee ? `Assigned to **${assignee}**` : undefined,
    ]
      .filter(Boolean)
      .join('\n'),
    // Resolution is good news whatever the level was; otherwise the level sets the tone.
    color: action === 'resolved' ? COLORS.resolved : levelColor(issue.level),
    timestamp: isoTime(action === 'created' ? issue.firstSeen : issue.lastSeen),
    fields: fields(
      field('Short ID', issue.shortId),
      field('Level', issue.level),
      field('Status', issue.status),
      field('Events', issue.count),
      field('Users', issue.userCount),
    ),
  };
}

function eventFields(event: JsonRecord): EmbedField[] {
  return fields(
    field('Level', event.level),
    field('Platform', event.platform),
    field('Environment', firstText(tag(event.tags, 'environment'), event.environment)),
    field('Release', firstText(tag(event.tags, 'release'), event.release)),
  );
}

function renderError(data: JsonRecord): Embed | null {
  const error = asRecord(data.error);
  if (!error) return null;
  return {
    title: `Error: ${firstText(error.title, error.message) ?? 'Unknown error'}`,
    url: firstText(error.web_url, error.issue_url),
    description: culpritLine(error.culprit),
    color: levelColor(error.level),
    timestamp: isoTime(error.datetime ?? error.timestamp),
    fields: eventFields(error),
  };
}

function renderEventAlert(data: JsonRecord): Embed | null {
  const event = asRecord(data.event);
  if (!event) return null;
  const rule = firstText(data.triggered_rule, at(data, 'issue_alert', 'title'));
  return {
    title: firstText(event.title, event.message) ?? 'Alert triggered',
    url: firstText(event.web_url, event.issue_url),
    description: [rule ? `Alert rule **${rule}** triggered` : undefined, culpritLine(event.culprit)]
      .filter(Boolean)
      .join('\n'),
    color: levelColor(event.level),
    timestamp: isoTime(event.datetime ?? event.timestamp),
    fields: eventFields(event),
  };
}

const METRIC_ALERT_COLORS: Record<string, number> = {
  critical: COLORS.error,
  warning: COLORS.warning,
  resolved: COLORS.resolved,
};

function renderMetricAlert(action: string | undefined, data: JsonRecord): Embed | null {
  const alert = asRecord(data.metric_alert);
  if (!alert) return null;
  const state = action ?? '';
  return {
    title:
      firstText(data.description_title, alert.title, at(alert, 'alert_rule', 'name')) ??
      'Metric alert',
    url: firstText(data.web_url, alert.web_url),
    description: asText(data.description_text),
    color: own(METRIC_ALERT_COLORS, state) ?? COLORS.warning,
    timestamp: isoTime(alert.date_detected ?? alert.date_started),
    fields: fields(
      field('Status', state ? state[0].toUpperCase() + state.slice(1) : undefined),
      field('Alert rule', at(alert, 'alert_rule', 'name')),
    ),
  };
}

function renderComment(action: string | undefined, data: JsonRecord): Embed | null {
  if (action !== 'created') return null;
  const comment = asText(data.comment);
  if (comment === undefined) return null;
  const issueId = asText(data.issue_id);
  return {
    title: prefixed(
      asText(data.project_slug),
      issueId ? `New comment on issue ${issueId}` : 'New comment',
    ),
    description: truncate(comment, COMMENT_MAX),
    color: COLORS.comment,
    timestamp: isoTime(data.timestamp),
  };
}

// Without the header (proxies often strip it), the shape of `data` names the resource.
function inferResource(data: JsonRecord): string | undefined {
  if (asRecord(data.issue)) return 'issue';
  if (asRecord(data.error)) return 'error';
  if (asRecord(data.metric_alert)) return 'metric_alert';
  if (asRecord(data.event)) return 'event_alert';
  if (asRecord(data.installation)) return 'installation';
  if (typeof data.comment === 'string') return 'comment';
  return undefined;
}

function isLegacyBody(p: JsonRecord): boolean {
  return (
    (p.project_name !== undefined || p.project !== undefined || p.culprit !== undefined) &&
    (asRecord(p.event) !== undefined || p.message !== undefined || p.url !== undefined)
  );
}

function renderLegacy(p: JsonRecord): Embed | null {
  const event = asRecord(p.event) ?? {};
  const title = firstText(event.title, p.message, at(event, 'metadata', 'title'));
  if (title === undefined) return null;
  const project = firstText(p.project_name, p.project_slug, p.project);
  return {
    title: prefixed(project, title),
    url: asText(p.url),
    description: culpritLine(firstText(p.culprit, event.culprit)),
    color: levelColor(p.level ?? event.level),
    timestamp: isoTime(event.datetime ?? event.timestamp),
    fields: fields(
      field('Level', firstText(p.level, event.level)),
      field('Environment', firstText(tag(event.tags, 'environment'), event.environment)),
      field('Rules', (asArray(p.triggering_rules) ?? []).map(asText).filter(Boolean).join(', ')),
    ),
  };
}

function render(resource: string | undefined, p: JsonRecord): Embed | null {
  const data = asRecord(p.data);
  if (!data) return isLegacyBody(p) ? renderLegacy(p) : null;
  const action = asText(p.action);
  const kind = resource ?? inferResource(data);
  let embed: Embed | null;
  switch (kind) {
    case 'issue':
      embed = renderIssue(action, data);
      break;
    case 'error':
      embed = renderError(data);
      break;
    case 'event_alert':
      embed = renderEventAlert(data);
      break;
    case 'metric_alert':
      embed = renderMetricAlert(action, data);
      break;
    case 'comment':
      embed = renderComment(action, data);
      break;
    default:
      // installation lifecycle, seer, unknown resources: nothing a channel needs to read.
      return null;
  }
  if (!embed) return null;
  return { ...embed, author: actorAuthor(p.actor) ?? embed.author };
}

/**
 * Renders a Sentry-format delivery as one embed, or null when there is nothing to post.
 * `resource` is the `Sentry-Hook-Resource` header when present. Never throws.
 */
export function transformErrorTracker(
  resource: string | undefined,
  payload: unknown,
): MessageDraft | null {
  try {
    const p = asRecord(payload);
    if (!p) return null;
    const header = typeof resource === 'string' ? resource.trim().toLowerCase() : '';
    const embed = render(header === '' ? undefined : header, p);
    return embed ? normalizeDraft({ embeds: [embed] }) : null;
  } catch {
    // Untrusted input must never turn into a 500.
    return null;
  }
}
