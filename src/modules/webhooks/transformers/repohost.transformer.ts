import { COLORS } from './colors';
import { Embed, EmbedAuthor, MessageDraft, normalizeDraft } from '../../guilds/embeds/embed';
import { markdownLink } from './markdown';
import { asArray, asRecord, asString, asText, at, firstText, JsonRecord, own } from './read';
import { truncate } from '../../guilds/embeds/truncate';

// Transforms GitHub-format webhook deliveries (event name from `X-GitHub-Event`) into one embed.
// Gitea, Forgejo and Gogs send GitHub-compatible bodies that differ in places (`compare_url`,
// `sender.username`, no `created`/`deleted` flags on pushes, `is_pull` on comments, missing
// `html_url`s): every reader below takes whichever spelling is present.

/** Commits listed in a push embed; the rest are summarised as "… and N more". */
export const PUSH_COMMIT_LIMIT = 5;

// A commit subject longer than this makes the list unreadable; git's own convention is ~72.
const COMMIT_SUBJECT_MAX = 72;
// Comment and issue bodies are previews, not the full text: keep embeds compact.
const BODY_PREVIEW_MAX = 500;

type Handler = (p: JsonRecord, ctx: Context) => Embed | null;

interface Context {
  repo: string;
  repoUrl?: string;
  author?: EmbedAuthor;
  action?: string;
}

function senderAuthor(sender: unknown): EmbedAuthor | undefined {
  // Gogs and Gitea also send `username`; older ones may send only that.
  const login = firstText(at(sender, 'login'), at(sender, 'username'));
  if (login === undefined) return undefined;
  return {
    name: login,
    url: asText(at(sender, 'html_url')),
    icon_url: asText(at(sender, 'avatar_url')),
  };
}

function preview(body: unknown): string | undefined {
  const text = asText(body);
  return text === undefined ? undefined : truncate(text.trim(), BODY_PREVIEW_MAX);
}

function shortSha(sha: unknown): string {
  return (asText(sha) ?? '').slice(0, 7) || '???????';
}

// An all-zero SHA stands for "no commit": `before` of a new ref, `after` of a deleted one. Gitea
// and Gogs pushes carry no `created`/`deleted` flags, only these.
const isZeroSha = (sha: unknown): boolean => /^0{40}(?:0{24})?$/.test(asText(sha) ?? '');

// A page for people, not an API document: GitHub's `url` fields are API URLs, Gitea's
// `pull_request.url` is the page. Only used when `html_url` is absent.
function pageUrl(item: unknown): string | undefined {
  const html = asText(at(item, 'html_url'));
  if (html !== undefined) return html;
  const url = asText(at(item, 'url'));
  return url && !/\/api\/|^https?:\/\/api\./.test(url) ? url : undefined;
}

// Issues and pull requests without any page URL (Gogs): the repository's usual path.
function itemUrl(item: unknown, repoUrl: string | undefined, kind: 'issues' | 'pulls') {
  const num = asString(at(item, 'number'));
  return pageUrl(item) ?? (repoUrl && num !== undefined ? `${repoUrl}/${kind}/${num}` : undefined);
}

function refName(ref: string): string {
  return ref.replace(/^refs\/(heads|tags)\//, '');
}

// `#12 Title` as GitHub shows it; the number is rendered as sent, even past 2^53.
function numbered(item: unknown): string {
  const num = asString(at(item, 'number'));
  const title = asText(at(item, 'title')) ?? '';
  return [num !== undefined ? `#${num}` : undefined, title].filter(Boolean).join(' ');
}

function commitLine(commit: unknown): string {
  const subject = (asText(at(commit, 'message')) ?? '').split('\n', 1)[0].trim();
  const sha = '`' + shortSha(at(commit, 'id')) + '`';
  const url = asText(at(commit, 'url'));
  const author =
    firstText(at(commit, 'author', 'name'), at(commit, 'author', 'username')) ?? 'unknown';
  const link = url ? markdownLink(sha, url) : sha;
  return `${link} ${truncate(subject, COMMIT_SUBJECT_MAX) || '(no message)'} - ${author}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

const push: Handler = (p, ctx) => {
  const ref = asText(p.ref) ?? '';
  const name = refName(ref);
  const isTag = ref.startsWith('refs/tags/');
  const kind = isTag ? 'Tag' : 'Branch';
  const commits = asArray(p.commits) ?? [];
  // Gitea lists a bounded number of commits and counts them all in `total_commits`.
  const total = Math.max(commits.length, Number(asString(p.total_commits) ?? 0) || 0);
  const compare = firstText(p.compare, p.compare_url);
  const created = p.created === true || (p.created === undefined && isZeroSha(p.before));
  const deleted = p.deleted === true || (p.deleted === undefined && isZeroSha(p.after));
  if (deleted) {
    return {
      title: `[${ctx.repo}] ${kind} deleted: ${name}`,
      url: ctx.repoUrl,
      color: COLORS.branchDelete,
    };
  }
  if (isTag) {
    return {
      title: `[${ctx.repo}] ${created ? 'New tag created' : 'Tag updated'}: ${name}`,
      url: compare ?? ctx.repoUrl,
      color: COLORS.tag,
    };
  }
  if (commits.length === 0) {
    if (created) {
      return {
        title: `[${ctx.repo}] New branch created: ${name}`,
        url: compare ?? ctx.repoUrl,
        color: COLORS.branchCreate,
      };
    }
    // A force-push to an older commit has no new commits but is still worth a message.
    if (p.forced === true) {
      return {
        title: `[${ctx.repo}:${name}] Branch force-pushed to ${shortSha(p.after)}`,
        url: compare ?? ctx.repoUrl,
        color: COLORS.forcePush,
      };
    }
    return null;
  }
  const lines = commits.slice(0, PUSH_COMMIT_LIMIT).map(commitLine);
  if (total > PUSH_COMMIT_LIMIT) {
    lines.push(`… and ${total - PUSH_COMMIT_LIMIT} more`);
  }
  const forced = p.forced === true;
  return {
    title: forced
      ? `[${ctx.repo}:${name}] ${plural(total, 'commit')} force-pushed`
      : `[${ctx.repo}:${name}] ${plural(total, 'new commit')}`,
    url: compare ?? ctx.repoUrl,
    description: lines.join('\n'),
    color: forced ? COLORS.forcePush : COLORS.push,
  };
};

const ISSUE_ACTIONS: Record<string, { verb: string; color: number }> = {
  opened: { verb: 'Issue opened', color: COLORS.issueOpened },
  closed: { verb: 'Issue closed', color: COLORS.issueClosed },
  reopened: { verb: 'Issue reopened', color: COLORS.issueReopened },
  edited: { verb: 'Issue edited', color: COLORS.issueEdited },
  deleted: { verb: 'Issue deleted', color: COLORS.branchDelete },
  transferred: { verb: 'Issue transferred', color: COLORS.issueEdited },
};

// Labels, assignees, milestones, pins and locks fire in bursts and carry little news: skipped.
const issues: Handler = (p, ctx) => {
  const action = own(ISSUE_ACTIONS, ctx.action);
  if (!action) return null;
  const notPlanned = ctx.action === 'closed' && at(p.issue, 'state_reason') === 'not_planned';
  return {
    title: `[${ctx.repo}] ${notPlanned ? 'Issue closed as not planned' : action.verb}: ${numbered(p.issue)}`,
    url: itemUrl(p.issue, ctx.repoUrl, 'issues'),
    description: ctx.action === 'opened' ? preview(at(p.issue, 'body')) : undefined,
    color: notPlanned ? COLORS.issueClosedNotPlanned : action.color,
  };
};

const issueComment: Handler = (p, ctx) => {
  if (ctx.action !== 'created') return null;
  // GitHub delivers pull request conversation comments as issue comments too; Gitea also says
  // so in `is_pull`.
  const isPull = asRecord(at(p.issue, 'pull_request')) !== undefined || p.is_pull === true;
  return {
    title: `[${ctx.repo}] New comment on ${isPull ? 'pull request' : 'issue'} ${numbered(p.issue)}`,
    url: firstText(
      at(p.comment, 'html_url'),
      itemUrl(p.issue, ctx.repoUrl, isPull ? 'pulls' : 'issues'),
    ),
    description: preview(at(p.comment, 'body')),
    color: COLORS.comment,
  };
};

const pullRequest: Handler = (p, ctx) => {
  const pr = p.pull_request;
  const draft = at(pr, 'draft') === true;
  let verb: string;
  let color: number;
  let withBody = false;
  switch (ctx.action) {
    case 'opened':
      verb = draft ? 'Draft pull request opened' : 'Pull request opened';
      color = draft ? COLORS.prDraft : COLORS.prOpened;
      withBody = true;
      break;
    case 'closed':
      if (at(pr, 'merged') === true) {
        verb = 'Pull request merged';
        color = COLORS.prMerged;
      } else {
        verb = 'Pull request closed';
        color = COLORS.prClosed;
      }
      break;
    case 'reopened':
      verb = 'Pull request reopened';
      color = COLORS.prReopened;
      break;
    case 'ready_for_review':
      verb = 'Pull request ready for review';
      color = COLORS.prOpened;
      withBody = true;
      break;
    default:
      return null;
  }
  return {
    title: `[${ctx.repo}] ${verb}: ${numbered(pr)}`,
    url: itemUrl(pr, ctx.repoUrl, 'pulls'),
    description: withBody ? preview(at(pr, 'body')) : undefined,
    color,
  };
};

const REVIEW_STATES: Record<string, { verb: string; color: number }> = {
  approved: { verb: 'Pull request approved', color: COLORS.reviewApproved },
  changes_requested: { verb: 'Changes requested', color: COLORS.reviewChangesRequested },
  commented: { verb: 'Pull request reviewed', color: COLORS.reviewCommented },
};

const pullRequestReview: Handler = (p, ctx) => {
  if (ctx.action !== 'submitted') return null;
  // Webhooks send lower case, the REST API upper case: accept both.
  const state = own(REVIEW_STATES, asText(at(p.review, 'state'))?.toLowerCase());
  if (!state) return null;
  return {
    title: `[${ctx.repo}] ${state.verb}: ${numbered(p.pull_request)}`,
    url: firstText(at(p.review, 'html_url'), at(p.pull_request, 'html_url')),
    description: preview(at(p.review, 'body')),
    color: state.color,
  };
};

const pullRequestReviewComment: Handler = (p, ctx) => {
  if (ctx.action !== 'created') return null;
  const path = asText(at(p.comment, 'path'));
  const body = preview(at(p.comment, 'body'));
  return {
    title: `[${ctx.repo}] New review comment on pull request ${numbered(p.pull_request)}`,
    url: asText(at(p.comment, 'html_url')),
    description: [path ? `\`${path}\`` : undefined, body].filter(Boolean).join('\n'),
    color: COLORS.comment,
  };
};

const commitComment: Handler = (p, ctx) => {
  // Older deliveries carry no action at all; anything but "created" is not news.
  if (ctx.action !== undefined && ctx.action !== 'created') return null;
  return {
    title: `[${ctx.repo}] New comment on commit \`${shortSha(at(p.comment, 'commit_id'))}\``,
    url: asText(at(p.comment, 'html_url')),
    description: preview(at(p.comment, 'body')),
    color: COLORS.comment,
  };
};

function refEvent(created: boolean): Handler {
  return (p, ctx) => {
    const ref = asText(p.ref);
    const type = asText(p.ref_type);
    if (ref === undefined || (type !== 'branch' && type !== 'tag')) return null;
    const kind = type === 'tag' ? 'tag' : 'branch';
    if (!created) {
      return {
        title: `[${ctx.repo}] ${kind === 'tag' ? 'Tag' : 'Branch'} deleted: ${ref}`,
        url: ctx.repoUrl,
        color: COLORS.branchDelete,
      };
    }
    return {
      title: `[${ctx.repo}] New ${kind} created: ${ref}`,
      url: ctx.repoUrl
        ? `${ctx.repoUrl}/tree/${ref.split('/').map(encodeURIComponent).join('/')}`
        : undefined,
      color: kind === 'tag' ? COLORS.tag : COLORS.branchCreate,
    };
  };
}

const fork: Handler = (p, ctx) => ({
  title: `[${ctx.repo}] Fork created: ${asText(at(p.forkee, 'full_name')) ?? 'unknown'}`,
  url: firstText(at(p.forkee, 'html_url'), ctx.repoUrl),
  color: COLORS.fork,
});

const member: Handler = (p, ctx) => {
  if (ctx.action !== 'added') return null;
  return {
    title: `[${ctx.repo}] New collaborator added: ${asText(at(p.member, 'login')) ?? 'unknown'}`,
    url: firstText(at(p.member, 'html_url'), ctx.repoUrl),
    color: COLORS.member,
  };
};

const publicEvent: Handler = (_p, ctx) => ({
  title: `[${ctx.repo}] Repository is now public`,
  url: ctx.repoUrl,
  color: COLORS.repository,
});

// GitHub sends created + published + released for one release; all three are opt-in news.
const RELEASE_ACTIONS = new Set(['published', 'released', 'created']);

const release: Handler = (p, ctx) => {
  if (!RELEASE_ACTIONS.has(ctx.action ?? '')) return null;
  const rel = p.release;
  const tag = asText(at(rel, 'tag_name'));
  const name = firstText(at(rel, 'name'), tag) ?? 'unknown';
  const label = tag && tag !== name ? `${name} (${tag})` : name;
  const kind = at(rel, 'prerelease') === true ? 'pre-release' : 'release';
  const verb =
    ctx.action === 'created'
      ? at(rel, 'draft') === true
        ? `Draft ${kind} created`
        : `New ${kind} created`
      : `New ${kind} published`;
  return {
    title: `[${ctx.repo}] ${verb}: ${label}`,
    url: firstText(at(rel, 'html_url'), ctx.repoUrl),
    description: preview(at(rel, 'body')),
    color: COLORS.release,
  };
};

function starEvent(action: string): Handler {
  return (p, ctx) => {
    if (ctx.action !== action) return null;
    const count = asString(at(p.repository, 'stargazers_count'));
    return {
      title: `[${ctx.repo}] New star added`,
      url: ctx.repoUrl,
      description: count !== undefined ? `Total stars: ${count}` : undefined,
      color: COLORS.star,
    };
  };
}

const CONCLUSIONS: Record<string, { word: string; color: number }> = {
  success: { word: 'succeeded', color: COLORS.checkSuccess },
  failure: { word: 'failed', color: COLORS.checkFailure },
  timed_out: { word: 'timed out', color: COLORS.checkFailure },
  action_required: { word: 'requires action', color: COLORS.checkFailure },
  startup_failure: { word: 'failed to start', color: COLORS.checkFailure },
  cancelled: { word: 'cancelled', color: COLORS.checkNeutral },
  skipped: { word: 'skipped', color: COLORS.checkNeutral },
  stale: { word: 'went stale', color: COLORS.checkNeutral },
  neutral: { word: 'completed', color: COLORS.checkNeutral },
};

function conclusion(value: unknown): { word: string; color: number } {
  return own(CONCLUSIONS, asText(value)) ?? { word: 'completed', color: COLORS.checkNeutral };
}

const checkRun: Handler = (p, ctx) => {
  if (ctx.action !== 'completed') return null;
  const run = p.check_run;
  const result = conclusion(at(run, 'conclusion'));
  const branch = asText(at(run, 'check_suite', 'head_branch'));
  const summary = [at(run, 'output', 'title'), at(run, 'output', 'summary')]
    .map(asText)
    .filter(Boolean)
    .join('\n');
  return {
    title: `[${ctx.repo}${branch ? `:${branch}` : ''}] Check run ${result.word}: ${
      asText(at(run, 'name')) ?? 'unknown'
    }`,
    url: firstText(at(run, 'html_url'), at(run, 'details_url'), ctx.repoUrl),
    description: summary ? truncate(summary, BODY_PREVIEW_MAX) : undefined,
    color: result.color,
  };
};

// `[repo:branch]`, or `[repo]` when the branch is unknown.
function where(ctx: Context, branch: string | undefined): string {
  return branch ? `[${ctx.repo}:${branch}]` : `[${ctx.repo}]`;
}

// GitHub Actions: one message per finished run (success, failure, cancelled, …), coloured by
// its conclusion; requested/in-progress runs are not news.
const workflowRun: Handler = (p, ctx) => {
  if (ctx.action !== 'completed') return null;
  const run = p.workflow_run;
  const result = conclusion(at(run, 'conclusion'));
  const name =
    firstText(at(run, 'name'), at(p.workflow, 'name'), at(run, 'display_title')) ?? 'workflow';
  const runNumber = asString(at(run, 'run_number'));
  const sha = asText(at(run, 'head_sha'));
  const subject = (asText(at(run, 'head_commit', 'message')) ?? '').split('\n', 1)[0].trim();
  const description = [
    runNumber !== undefined ? `Run #${runNumber}` : undefined,
    sha ? `\`${sha.slice(0, 7)}\`` : undefined,
    subject ? truncate(subject, COMMIT_SUBJECT_MAX) : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
  return {
    title: `${where(ctx, asText(at(run, 'head_branch')))} Workflow ${result.word}: ${name}`,
    url: firstText(at(run, 'html_url'), ctx.repoUrl),
    description: description || undefined,
    color: result.color,
  };
};

// Jobs fire for every step of every run: only a failed job is worth a message of its own.
const workflowJob: Handler = (p, ctx) => {
  const job = p.workflow_job;
  if (ctx.action !== 'completed' || asText(at(job, 'conclusion')) !== 'failure') return null;
  const workflow = asText(at(job, 'workflow_name'));
  const failedSteps = (asArray(at(job, 'steps')) ?? [])
    .filter((step) => asText(at(step, 'conclusion')) === 'failure')
    .map((step) => asText(at(step, 'name')))
    .filter((name): name is string => name !== undefined);
  return {
    title: `${where(ctx, asText(at(job, 'head_branch')))} Job failed: ${
      asText(at(job, 'name')) ?? 'unknown'
    }${workflow ? ` (${workflow})` : ''}`,
    url: firstText(at(job, 'html_url'), ctx.repoUrl),
    description:
      failedSteps.length > 0
        ? truncate(`Failed step: ${failedSteps.join(', ')}`, BODY_PREVIEW_MAX)
        : undefined,
    color: COLORS.checkFailure,
  };
};

const DEPLOYMENT_STATES: Record<string, { word: string; color: number }> = {
  success: { word: 'succeeded', color: COLORS.checkSuccess },
  failure: { word: 'failed', color: COLORS.checkFailure },
  error: { word: 'errored', color: COLORS.checkFailure },
  in_progress: { word: 'in progress', color: COLORS.deploymentInProgress },
};

// Queued, pending, waiting and inactive statuses come in bursts around the ones above: skipped.
const deploymentStatus: Handler = (p, ctx) => {
  const status = p.deployment_status;
  const state = asText(at(status, 'state')) ?? '';
  const known = own(DEPLOYMENT_STATES, state);
  if (!known) return null;
  const environment =
    firstText(at(status, 'environment'), at(p.deployment, 'environment')) ?? 'unknown';
  // A finished deployment links to what was deployed; otherwise to its logs.
  const url =
    state === 'success'
      ? firstText(at(status, 'environment_url'), at(status, 'target_url'), at(status, 'log_url'))
      : firstText(at(status, 'target_url'), at(status, 'log_url'), at(status, 'environment_url'));
  const ref = asText(at(p.deployment, 'ref'));
  const sha = asText(at(p.deployment, 'sha'));
  const description = [
    preview(at(status, 'description')),
    ref ? `Ref \`${ref}\`${sha ? ` (\`${sha.slice(0, 7)}\`)` : ''}` : undefined,
  ]
    .filter(Boolean)
    .join('\n');
  return {
    title: `[${ctx.repo}] Deployment to ${environment} ${known.word}`,
    url: url ?? ctx.repoUrl,
    description: description || undefined,
    color: known.color,
  };
};

const checkSuite: Handler = (p, ctx) => {
  if (ctx.action !== 'completed') return null;
  const suite = p.check_suite;
  const result = conclusion(at(suite, 'conclusion'));
  const branch = asText(at(suite, 'head_branch'));
  const sha = asText(at(suite, 'head_sha'));
  const app = asText(at(suite, 'app', 'name'));
  return {
    title: `[${ctx.repo}${branch ? `:${branch}` : ''}] Check suite ${result.word}${
      app ? ` (${app})` : ''
    }`,
    // Suites have no html_url; the commit's checks tab is the closest page.
    url: ctx.repoUrl && sha ? `${ctx.repoUrl}/commit/${sha}/checks` : ctx.repoUrl,
    description: sha ? `Commit \`${sha.slice(0, 7)}\`` : undefined,
    color: result.color,
  };
};

const discussion: Handler = (p, ctx) => {
  const d = p.discussion;
  if (ctx.action === 'created') {
    return {
      title: `[${ctx.repo}] New discussion: ${numbered(d)}`,
      url: asText(at(d, 'html_url')),
      description: preview(at(d, 'body')),
      color: COLORS.discussion,
    };
  }
  if (ctx.action === 'answered') {
    return {
      title: `[${ctx.repo}] Discussion answered: ${numbered(d)}`,
      url: firstText(at(p.answer, 'html_url'), at(d, 'answer_html_url'), at(d, 'html_url')),
      description: preview(at(p.answer, 'body')),
      color: COLORS.discussionAnswered,
    };
  }
  return null;
};

const discussionComment: Handler = (p, ctx) => {
  if (ctx.action !== 'created') return null;
  return {
    title: `[${ctx.repo}] New comment on discussion ${numbered(p.discussion)}`,
    url: firstText(at(p.comment, 'html_url'), at(p.discussion, 'html_url')),
    description: preview(at(p.comment, 'body')),
    color: COLORS.comment,
  };
};

const REPOSITORY_ACTIONS: Record<string, string> = {
  created: 'Repository created',
  deleted: 'Repository deleted',
  archived: 'Repository archived',
  unarchived: 'Repository unarchived',
  renamed: 'Repository renamed',
  publicized: 'Repository made public',
  privatized: 'Repository made private',
};

const repository: Handler = (p, ctx) => {
  const verb = own(REPOSITORY_ACTIONS, ctx.action);
  if (!verb) return null;
  const from = asText(at(p.changes, 'repository', 'name', 'from'));
  return {
    title: `[${ctx.repo}] ${verb}`,
    // A deleted repository's page is gone; linking it would only 404.
    url: ctx.action === 'deleted' ? undefined : ctx.repoUrl,
    description: ctx.action === 'renamed' && from ? `Renamed from **${from}**` : undefined,
    color: ctx.action === 'deleted' ? COLORS.repositoryDeleted : COLORS.repository,
  };
};

const HANDLERS: Record<string, Handler> = {
  push,
  issues,
  issue_comment: issueComment,
  pull_request: pullRequest,
  pull_request_review: pullRequestReview,
  pull_request_review_comment: pullRequestReviewComment,
  commit_comment: commitComment,
  create: refEvent(true),
  delete: refEvent(false),
  fork,
  member,
  public: publicEvent,
  release,
  watch: starEvent('started'),
  star: starEvent('created'),
  check_run: checkRun,
  check_suite: checkSuite,
  workflow_run: workflowRun,
  workflow_job: workflowJob,
  deployment_status: deploymentStatus,
  discussion,
  discussion_comment: discussionComment,
  repository,
};

/**
 * Renders a GitHub-format delivery as one embed. Returns null for `ping`, unsupported events and
 * filtered actions. Never throws: foreign payloads are untrusted and may be any JSON value.
 */
export function transformRepoHost(event: string, payload: unknown): MessageDraft | null {
  try {
    const name = typeof event === 'string' ? event.trim().toLowerCase() : '';
    // hasOwnProperty keeps "constructor", "__proto__" & co. from resolving to Object.prototype.
    if (!Object.hasOwn(HANDLERS, name)) return null;
    const p = asRecord(payload);
    if (!p) return null;
    const ctx: Context = {
      repo: firstText(at(p.repository, 'full_name'), at(p.repository, 'name')) ?? 'unknown',
      repoUrl: asText(at(p.repository, 'html_url')),
      // Gitea and Gogs pushes name the pusher as a full user too.
      author: senderAuthor(p.sender) ?? senderAuthor(p.pusher),
      action: asText(p.action),
    };
    const embed = HANDLERS[name](p, ctx);
    if (!embed) return null;
    return normalizeDraft({ embeds: [{ ...embed, author: ctx.author }] });
  } catch {
    // A hostile payload (getters, proxies, cyclic objects) must not take the request down.
    return null;
  }
}
