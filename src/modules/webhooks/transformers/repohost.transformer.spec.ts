import definitions from '@octokit/webhooks-examples';
import { COLORS } from './colors';
import { Embed, MessageDraft } from '../../guilds/embeds/embed';
import { PUSH_COMMIT_LIMIT, transformRepoHost } from './repohost.transformer';
import { EMBED_LIMITS } from '../../guilds/embeds/truncate';
import forgejoPullRequest from './fixtures/forgejo-pull-request.json';
import giteaIssueComment from './fixtures/gitea-issue-comment.json';
import giteaPush from './fixtures/gitea-push.json';
import giteaRelease from './fixtures/gitea-release.json';
import gogsIssues from './fixtures/gogs-issues.json';

// Real deliveries from @octokit/webhooks-examples: loosely typed on purpose, the transformer
// itself treats them as unknown.
type Payload = Record<string, any>;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function examples(event: string, action?: string): Payload[] {
  const definition = definitions.find((d) => d.name === event);
  if (!definition) throw new Error(`no examples for ${event}`);
  const all = definition.examples as unknown as Payload[];
  const list = action === undefined ? all : all.filter((e) => e.action === action);
  if (list.length === 0) throw new Error(`no ${event}.${action} examples`);
  return list;
}

function clone(payload: Payload): Payload {
  return JSON.parse(JSON.stringify(payload)) as Payload;
}

function render(event: string, payload: unknown): Embed {
  const draft = transformRepoHost(event, payload);
  expect(draft).not.toBeNull();
  expect(draft!.embeds).toHaveLength(1);
  return draft!.embeds[0];
}

function authorOf(p: Payload): Embed['author'] {
  return { name: p.sender.login, url: p.sender.html_url, icon_url: p.sender.avatar_url };
}

const repo = (p: Payload): string => p.repository.full_name;

// Each case lists the example payloads of one event/action and the embed they must produce.
interface Case {
  event: string;
  action?: string;
  // Which examples of the event to use; defaults to those with `action`.
  pick?: (p: Payload) => boolean;
  expected: (p: Payload) => Embed;
}

const cases: Case[] = [
  {
    event: 'push',
    pick: (p) => p.ref.startsWith('refs/heads/') && p.commits.length > 0,
    expected: (p) => ({
      title: `[${repo(p)}:master] 1 new commit`,
      url: p.compare,
      description:
        '[`6113728`](https://github.com/Codertocat/Hello-World/commit/6113728f27ae82c7b1a177c8d03f9e96e0adf246) Initial commit - Codertocat',
      color: COLORS.push,
      author: authorOf(p),
    }),
  },
  {
    event: 'push',
    pick: (p) => p.ref.startsWith('refs/tags/') && p.created === true,
    expected: (p) => ({
      title: `[${repo(p)}] New tag created: simple-tag`,
      url: p.compare,
      color: COLORS.tag,
      author: authorOf(p),
    }),
  },
  {
    event: 'push',
    pick: (p) => p.deleted === true,
    expected: (p) => ({
      title: `[${repo(p)}] Tag deleted: simple-tag`,
      url: p.repository.html_url,
      color: COLORS.branchDelete,
      author: authorOf(p),
    }),
  },
  // The examples have no issues.closed delivery; a built one is tested below.
  ...['opened', 'reopened', 'edited', 'deleted', 'transferred'].map((action): Case => ({
    event: 'issues',
    action,
    expected: (p) => ({
      title: `[${repo(p)}] ${
        {
          opened: 'Issue opened',
          closed: 'Issue closed',
          reopened: 'Issue reopened',
          edited: 'Issue edited',
          deleted: 'Issue deleted',
          transferred: 'Issue transferred',
        }[action]
      }: #${p.issue.number} ${p.issue.title}`,
      url: p.issue.html_url,
      ...(action === 'opened' && p.issue.body ? { description: p.issue.body } : {}),
      color: {
        opened: COLORS.issueOpened,
        closed: COLORS.issueClosed,
        reopened: COLORS.issueReopened,
        edited: COLORS.issueEdited,
        deleted: COLORS.branchDelete,
        transferred: COLORS.issueEdited,
      }[action],
      author: authorOf(p),
    }),
  })),
  {
    event: 'issue_comment',
    action: 'created',
    expected: (p) => ({
      title: `[${repo(p)}] New comment on issue #1 Spelling error in the README file`,
      url: p.comment.html_url,
      description: "You are totally right! I'll get this fixed right away.",
      color: COLORS.comment,
      author: authorOf(p),
    }),
  },
  {
    event: 'pull_request',
    action: 'opened',
    expected: (p) => ({
      title: `[${repo(p)}] Pull request opened: #2 Update the README with new information.`,
      url: 'https://github.com/Codertocat/Hello-World/pull/2',
      ...(p.pull_request.body ? { description: p.pull_request.body } : {}),
      color: COLORS.prOpened,
      author: authorOf(p),
    }),
  },
  {
    event: 'pull_request',
    action: 'closed',
    expected: (p) => ({
      title: `[${repo(p)}] Pull request closed: #2 Update the README with new information.`,
      url: p.pull_request.html_url,
      color: COLORS.prClosed,
      author: authorOf(p),
    }),
  },
  {
    event: 'pull_request',
    action: 'reopened',
    expected: (p) => ({
      title: `[${repo(p)}] Pull request reopened: #2 Update the README with new information.`,
      url: p.pull_request.html_url,
      color: COLORS.prReopened,
      author: authorOf(p),
    }),
  },
  {
    event: 'pull_request',
    action: 'ready_for_review',
    expected: (p) => ({
      title: `[${repo(p)}] Pull request ready for review: #2 Update the README with new information.`,
      url: p.pull_request.html_url,
      description: 'This is a pretty simple change that we need to pull into master.',
      color: COLORS.prOpened,
      author: authorOf(p),
    }),
  },
  {
    event: 'pull_request_review',
    action: 'submitted',
    expected: (p) => ({
      title: `[${repo(p)}] Pull request reviewed: #2 Update the README with new information.`,
      url: 'https://github.com/Codertocat/Hello-World/pull/2#pullrequestreview-237895671',
      ...(p.review.body ? { description: p.review.body } : {}),
      color: COLORS.reviewCommented,
      author: authorOf(p),
    }),
  },
  {
    event: 'pull_request_review_comment',
    action: 'created',
    expected: (p) => ({
      title: `[${repo(p)}] New review comment on pull request #2 Update the README with new information.`,
      url: p.comment.html_url,
      description: '`README.md`\nMaybe you should use more emoji on this line.',
      color: COLORS.comment,
      author: authorOf(p),
    }),
  },
  {
    event: 'commit_comment',
    action: 'created',
    expected: (p) => ({
      title: `[${repo(p)}] New comment on commit \`6113728\``,
      url: p.comment.html_url,
      description: 'This is a really good change! :+1:',
      color: COLORS.comment,
      author: authorOf(p),
    }),
  },
  {
    event: 'create',
    expected: (p) => ({
      title: `[${repo(p)}] New tag created: simple-tag`,
      url: 'https://github.com/Codertocat/Hello-World/tree/simple-tag',
      color: COLORS.tag,
      author: authorOf(p),
    }),
  },
  {
    event: 'delete',
    expected: (p) => ({
      title: `[${repo(p)}] Tag deleted: simple-tag`,
      url: p.repository.html_url,
      color: COLORS.branchDelete,
      author: authorOf(p),
    }),
  },
  {
    event: 'fork',
    expected: (p) => ({
      title: `[${repo(p)}] Fork created: Octocoders/Hello-World`,
      url: 'https://github.com/Octocoders/Hello-World',
      color: COLORS.fork,
      author: authorOf(p),
    }),
  },
  {
    event: 'member',
    action: 'added',
    expected: (p) => ({
      title: `[${repo(p)}] New collaborator added: hacktocat`,
      url: 'https://github.com/hacktocat',
      color: COLORS.member,
      author: authorOf(p),
    }),
  },
  {
    event: 'public',
    expected: (p) => ({
      title: `[${repo(p)}] Repository is now public`,
      url: p.repository.html_url,
      color: COLORS.repository,
      author: authorOf(p),
    }),
  },
  ...['published', 'released', 'created'].map((action): Case => ({
    event: 'release',
    action,
    expected: (p) => ({
      title: `[${repo(p)}] ${action === 'created' ? 'New release created' : 'New release published'}: 0.0.1`,
      url: 'https://github.com/Codertocat/Hello-World/releases/tag/0.0.1',
      color: COLORS.release,
      author: authorOf(p),
    }),
  })),
  {
    event: 'watch',
    action: 'started',
    expected: (p) => ({
      title: `[${repo(p)}] New star added`,
      url: p.repository.html_url,
      description: `Total stars: ${p.repository.stargazers_count}`,
      color: COLORS.star,
      author: authorOf(p),
    }),
  },
  {
    event: 'star',
    action: 'created',
    expected: (p) => ({
      title: `[${repo(p)}] New star added`,
      url: p.repository.html_url,
      description: `Total stars: ${p.repository.stargazers_count}`,
      color: COLORS.star,
      author: authorOf(p),
    }),
  },
  {
    event: 'check_run',
    action: 'completed',
    expected: (p) => {
      const failed = p.check_run.conclusion === 'failure';
      return {
        title: `[${repo(p)}:changes] Check run ${failed ? 'failed' : 'succeeded'}: Octocoders-linter`,
        url: 'https://github.com/Codertocat/Hello-World/runs/128620228',
        color: failed ? COLORS.checkFailure : COLORS.checkSuccess,
        author: authorOf(p),
      };
    },
  },
  {
    event: 'check_suite',
    action: 'completed',
    expected: (p) => ({
      title: `[${repo(p)}:${p.check_suite.head_branch}] Check suite succeeded (octocoders-linter)`,
      url: `https://github.com/Codertocat/Hello-World/commit/${p.check_suite.head_sha}/checks`,
      description: 'Commit `ec26c3e`',
      color: COLORS.checkSuccess,
      author: authorOf(p),
    }),
  },
  {
    event: 'discussion',
    action: 'created',
    expected: (p) => ({
      title: `[${repo(p)}] New discussion: #${p.discussion.number} ${p.discussion.title}`,
      url: p.discussion.html_url,
      description: p.discussion.body,
      color: COLORS.discussion,
      author: authorOf(p),
    }),
  },
  {
    event: 'discussion',
    action: 'answered',
    expected: (p) => ({
      title: `[${repo(p)}] Discussion answered: #4 TEST edit`,
      url: 'https://github.com/Codertocat/Hello-World/discussions/4#discussioncomment-550561',
      description: 'Poggers',
      color: COLORS.discussionAnswered,
      author: authorOf(p),
    }),
  },
  {
    event: 'discussion_comment',
    action: 'created',
    expected: (p) => ({
      title: `[${repo(p)}] New comment on discussion #${p.discussion.number} ${p.discussion.title}`,
      url: p.comment.html_url,
      description: p.comment.body,
      color: COLORS.comment,
      author: authorOf(p),
    }),
  },
  ...(['created', 'publicized', 'privatized'] as const).map((action): Case => ({
    event: 'repository',
    action,
    expected: (p) => ({
      title: `[${repo(p)}] ${
        {
          created: 'Repository created',
          publicized: 'Repository made public',
          privatized: 'Repository made private',
        }[action]
      }`,
      url: p.repository.html_url,
      color: COLORS.repository,
      author: authorOf(p),
    }),
  })),
  {
    event: 'repository',
    action: 'renamed',
    expected: (p) => ({
      title: '[Octocoders/Hello-World] Repository renamed',
      url: 'https://github.com/Octocoders/Hello-World',
      description: 'Renamed from **Hello-World**',
      color: COLORS.repository,
      author: authorOf(p),
    }),
  },
  {
    event: 'workflow_run',
    action: 'completed',
    pick: (p) => p.action === 'completed' && p.workflow_run.conclusion === 'success',
    expected: (p) => ({
      // The run's own name is blank in these examples: the workflow's is used.
      title: '[octo-org/octo-repo:master] Workflow succeeded: test',
      url: 'https://github.com/octo-org/octo-repo/actions/runs/289782451',
      description: 'Run #163 · `3484a3f` · build(test): check workflow run event payload',
      color: COLORS.checkSuccess,
      author: authorOf(p),
    }),
  },
  {
    event: 'workflow_run',
    action: 'completed',
    // A completed delivery whose conclusion is null: rendered, neutral.
    pick: (p) => p.action === 'completed' && p.workflow_run.conclusion === null,
    expected: (p) => ({
      title: '[Codertocat/Hello-World:main] Workflow completed: Manually triggered workflow',
      url: 'https://github.com/octo-org/octo-repo/actions/runs/1589141559',
      description: 'Run #36 · `5779607` · Update milestone-created.yml',
      color: COLORS.checkNeutral,
      author: authorOf(p),
    }),
  },
  {
    event: 'workflow_job',
    action: 'completed',
    pick: (p) => p.action === 'completed' && p.workflow_job.conclusion === 'failure',
    expected: (p) => ({
      title: '[Codertocat/Hello-World:main] Job failed: linters (CodeQL)',
      url: 'https://github.com/octo-org/octo-repo/runs/1291536064',
      description: 'Failed step: Run yarn run format-check',
      color: COLORS.checkFailure,
      author: authorOf(p),
    }),
  },
  {
    event: 'deployment_status',
    pick: (p) => p.deployment_status.state === 'success',
    expected: (p) => ({
      // No environment_url nor target_url in these examples: the repository is linked.
      title: '[Codertocat/Hello-World] Deployment to production succeeded',
      url: 'https://github.com/Codertocat/Hello-World',
      description: 'Ref `master` (`f95f852`)',
      color: COLORS.checkSuccess,
      author: authorOf(p),
    }),
  },
  {
    event: 'deployment_status',
    pick: (p) => p.deployment_status.state === 'in_progress',
    expected: (p) => ({
      title: '[Codertocat/Hello-World] Deployment to github-pages in progress',
      url: 'https://github.com/Codertocat/Hello-World/runs/145988746?check_suite_focus=true',
      description: 'Ref `master` (`f95f852`)',
      color: COLORS.deploymentInProgress,
      author: authorOf(p),
    }),
  },
];

describe('transformRepoHost with @octokit/webhooks-examples', () => {
  for (const c of cases) {
    const all = c.pick ? examples(c.event).filter(c.pick) : examples(c.event, c.action);
    it(`renders ${c.event}${c.action ? `.${c.action}` : ''} (${all.length} examples)`, () => {
      expect(all.length).toBeGreaterThan(0);
      for (const payload of all) {
        expect(render(c.event, payload)).toEqual(c.expected(payload));
      }
    });
  }

  it('covers every event the transformer supports', () => {
    const covered = new Set(cases.map((c) => c.event));
    expect([...covered].sort()).toEqual(
      [
        'check_run',
        'check_suite',
        'commit_comment',
        'create',
        'delete',
        'deployment_status',
        'discussion',
        'discussion_comment',
        'fork',
        'issue_comment',
        'issues',
        'member',
        'public',
        'pull_request',
        'pull_request_review',
        'pull_request_review_comment',
        'push',
        'release',
        'repository',
        'star',
        'watch',
        'workflow_job',
        'workflow_run',
      ].sort(),
    );
  });

  it.each([
    [
      'issues',
      [
        'assigned',
        'unassigned',
        'labeled',
        'unlabeled',
        'milestoned',
        'demilestoned',
        'locked',
        'unlocked',
        'pinned',
        'unpinned',
      ],
    ],
    ['issue_comment', ['edited', 'deleted']],
    [
      'pull_request',
      [
        'assigned',
        'labeled',
        'synchronize',
        'review_requested',
        'converted_to_draft',
        'locked',
        'unassigned',
      ],
    ],
    ['pull_request_review', ['dismissed']],
    ['pull_request_review_comment', ['edited', 'deleted']],
    ['member', ['edited']],
    ['release', ['deleted', 'edited', 'prereleased']],
    ['star', ['deleted']],
    ['check_run', ['created', 'rerequested', 'requested_action']],
    ['check_suite', ['requested', 'rerequested']],
    ['discussion', ['edited', 'labeled', 'locked', 'pinned', 'transferred', 'category_changed']],
    ['discussion_comment', ['edited', 'deleted']],
    ['repository', ['edited', 'transferred']],
    ['workflow_run', ['requested']],
    ['workflow_job', ['in_progress', 'queued', 'waiting']],
  ])('filters noisy %s actions', (event, actions) => {
    for (const action of actions) {
      for (const payload of examples(event, action)) {
        expect({ action, draft: transformRepoHost(event, payload) }).toEqual({
          action,
          draft: null,
        });
      }
    }
  });

  it('returns null for ping and for every unsupported event', () => {
    for (const payload of examples('ping')) expect(transformRepoHost('ping', payload)).toBeNull();
    const unsupported = definitions.filter((d) => !cases.some((c) => c.event === d.name));
    expect(unsupported.map((d) => d.name)).toEqual(
      expect.arrayContaining(['label', 'gollum', 'deployment', 'workflow_dispatch']),
    );
    for (const d of unsupported) {
      for (const payload of d.examples) {
        expect({ event: d.name, draft: transformRepoHost(d.name, payload) }).toEqual({
          event: d.name,
          draft: null,
        });
      }
    }
  });

  it('renders every example of every event within the limits, without lone surrogates', () => {
    let rendered = 0;
    for (const d of definitions) {
      for (const payload of d.examples) {
        const draft = transformRepoHost(d.name, payload);
        if (!draft) continue;
        rendered += 1;
        const [embed] = draft.embeds;
        expect(embed.title!.length).toBeLessThanOrEqual(EMBED_LIMITS.title);
        expect((embed.description ?? '').length).toBeLessThanOrEqual(EMBED_LIMITS.description);
        expect(embed.author?.name).toBe((payload as Payload).sender.login);
        expect(JSON.stringify(draft)).not.toMatch(LONE_SURROGATE);
      }
    }
    expect(rendered).toBeGreaterThan(90);
  });
});

describe('transformRepoHost with built payloads', () => {
  const pushBase = (): Payload => examples('push').find((p) => p.commits.length === 1)!;

  function commit(i: number, message = `Commit number ${i}\n\nbody text`): Payload {
    const id = `${i}`.padStart(2, '0') + 'abcdef0123456789abcdef0123456789abcdef';
    return {
      id,
      message,
      url: `https://github.com/Codertocat/Hello-World/commit/${id}`,
      author: { name: `Dev ${i}`, username: `dev${i}` },
    };
  }

  it('lists at most five commits and summarises the rest', () => {
    const p = clone(pushBase());
    p.created = false;
    p.ref = 'refs/heads/feature/x';
    p.compare = 'https://github.com/Codertocat/Hello-World/compare/aaa...bbb';
    p.commits = Array.from({ length: 8 }, (_, i) => commit(i + 1));
    const embed = render('push', p);
    expect(embed.title).toBe('[Codertocat/Hello-World:feature/x] 8 new commits');
    expect(embed.url).toBe('https://github.com/Codertocat/Hello-World/compare/aaa...bbb');
    expect(embed.color).toBe(COLORS.push);
    const lines = embed.description!.split('\n');
    expect(lines).toHaveLength(PUSH_COMMIT_LIMIT + 1);
    expect(lines[0]).toBe(
      '[`01abcde`](https://github.com/Codertocat/Hello-World/commit/01abcdef0123456789abcdef0123456789abcdef) Commit number 1 - Dev 1',
    );
    expect(lines[4]).toContain('Commit number 5 - Dev 5');
    expect(lines[5]).toBe('… and 3 more');
  });

  it('says when a push was forced', () => {
    const p = clone(pushBase());
    p.created = false;
    p.forced = true;
    p.commits = [commit(1), commit(2)];
    const embed = render('push', p);
    expect(embed.title).toBe('[Codertocat/Hello-World:master] 2 commits force-pushed');
    expect(embed.color).toBe(COLORS.forcePush);
    expect(embed.description!.split('\n')).toHaveLength(2);
  });

  it('reports a forced reset with no new commits', () => {
    const p = clone(pushBase());
    Object.assign(p, { created: false, forced: true, commits: [], after: 'deadbeefcafe' });
    expect(render('push', p).title).toBe(
      '[Codertocat/Hello-World:master] Branch force-pushed to deadbee',
    );
  });

  it('renders new and deleted branches pushed without commits', () => {
    const created = clone(pushBase());
    Object.assign(created, { ref: 'refs/heads/topic', commits: [], created: true });
    expect(render('push', created)).toMatchObject({
      title: '[Codertocat/Hello-World] New branch created: topic',
      color: COLORS.branchCreate,
    });
    const deleted = clone(pushBase());
    Object.assign(deleted, { ref: 'refs/heads/topic', commits: [], created: false, deleted: true });
    expect(render('push', deleted)).toMatchObject({
      title: '[Codertocat/Hello-World] Branch deleted: topic',
      color: COLORS.branchDelete,
      url: 'https://github.com/Codertocat/Hello-World',
    });
  });

  it('returns null for a plain push with nothing new', () => {
    const p = clone(pushBase());
    Object.assign(p, { created: false, forced: false, commits: [] });
    expect(transformRepoHost('push', p)).toBeNull();
  });

  it('renders closed issues, including "not planned"', () => {
    const p = clone(examples('issues', 'opened')[0]);
    p.action = 'closed';
    p.issue.state = 'closed';
    expect(render('issues', p)).toEqual({
      title: '[Codertocat/Hello-World] Issue closed: #1 Spelling error in the README file',
      url: 'https://github.com/Codertocat/Hello-World/issues/1',
      color: COLORS.issueClosed,
      author: authorOf(p),
    });
    p.issue.state_reason = 'not_planned';
    expect(render('issues', p)).toMatchObject({
      title:
        '[Codertocat/Hello-World] Issue closed as not planned: #1 Spelling error in the README file',
      color: COLORS.issueClosedNotPlanned,
    });
  });

  it('renders merged pull requests (closed + merged)', () => {
    const p = clone(examples('pull_request', 'closed')[0]);
    p.pull_request.merged = true;
    expect(render('pull_request', p)).toEqual({
      title:
        '[Codertocat/Hello-World] Pull request merged: #2 Update the README with new information.',
      url: 'https://github.com/Codertocat/Hello-World/pull/2',
      color: COLORS.prMerged,
      author: authorOf(p),
    });
  });

  it('marks draft pull requests', () => {
    const p = clone(examples('pull_request', 'opened')[0]);
    p.pull_request.draft = true;
    expect(render('pull_request', p)).toMatchObject({
      title:
        '[Codertocat/Hello-World] Draft pull request opened: #2 Update the README with new information.',
      color: COLORS.prDraft,
    });
  });

  it.each([
    ['approved', 'Pull request approved', COLORS.reviewApproved],
    ['changes_requested', 'Changes requested', COLORS.reviewChangesRequested],
    ['CHANGES_REQUESTED', 'Changes requested', COLORS.reviewChangesRequested],
    ['commented', 'Pull request reviewed', COLORS.reviewCommented],
  ])('renders %s reviews', (state, verb, color) => {
    const p = clone(examples('pull_request_review', 'submitted')[0]);
    p.review.state = state;
    p.review.body = 'Looks good to me';
    expect(render('pull_request_review', p)).toEqual({
      title: `[Codertocat/Hello-World] ${verb}: #2 Update the README with new information.`,
      url: p.review.html_url,
      description: 'Looks good to me',
      color,
      author: authorOf(p),
    });
  });

  it('labels pull request conversation comments', () => {
    const p = clone(examples('issue_comment', 'created')[0]);
    p.issue.pull_request = { url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/1' };
    expect(render('issue_comment', p).title).toBe(
      '[Codertocat/Hello-World] New comment on pull request #1 Spelling error in the README file',
    );
  });

  it('renders new branches from create events with a tree link', () => {
    const p = clone(examples('create')[0]);
    Object.assign(p, { ref: 'feature/new thing', ref_type: 'branch' });
    expect(render('create', p)).toMatchObject({
      title: '[Codertocat/Hello-World] New branch created: feature/new thing',
      url: 'https://github.com/Codertocat/Hello-World/tree/feature/new%20thing',
      color: COLORS.branchCreate,
    });
  });

  it('renders pre-releases and drafts', () => {
    const p = clone(examples('release', 'published')[0]);
    Object.assign(p.release, { prerelease: true, name: 'Beta 1', body: 'Notes' });
    expect(render('release', p)).toMatchObject({
      title: '[Codertocat/Hello-World] New pre-release published: Beta 1 (0.0.1)',
      description: 'Notes',
    });
    p.action = 'created';
    Object.assign(p.release, { prerelease: false, draft: true });
    expect(render('release', p).title).toBe(
      '[Codertocat/Hello-World] Draft release created: Beta 1 (0.0.1)',
    );
  });

  it.each([
    ['deleted', 'Repository deleted', COLORS.repositoryDeleted, undefined],
    [
      'archived',
      'Repository archived',
      COLORS.repository,
      'https://github.com/Octocoders/Hello-World',
    ],
    [
      'unarchived',
      'Repository unarchived',
      COLORS.repository,
      'https://github.com/Octocoders/Hello-World',
    ],
  ])('renders repository %s', (action, verb, color, url) => {
    const p = clone(examples('repository', 'created')[0]);
    p.action = action;
    const embed = render('repository', p);
    expect(embed.title).toBe(`[Octocoders/Hello-World] ${verb}`);
    expect(embed.color).toBe(color);
    expect(embed.url).toBe(url);
  });

  it.each([
    ['timed_out', 'timed out', COLORS.checkFailure],
    ['neutral', 'completed', COLORS.checkNeutral],
    ['cancelled', 'cancelled', COLORS.checkNeutral],
    ['something_new', 'completed', COLORS.checkNeutral],
  ])('colours check runs concluded %s', (conclusion, word, color) => {
    const p = clone(examples('check_run', 'completed')[0]);
    p.check_run.conclusion = conclusion;
    p.check_run.output = { title: 'Lint', summary: '3 warnings' };
    expect(render('check_run', p)).toMatchObject({
      title: `[Codertocat/Hello-World:changes] Check run ${word}: Octocoders-linter`,
      description: 'Lint\n3 warnings',
      color,
    });
  });

  it('renders ids and numbers beyond 2^53 as JSON.parse left them', () => {
    const raw = JSON.stringify(examples('issues', 'opened')[0]).replace(
      '"number":1,',
      '"number":9007199254740993,',
    );
    expect(raw).toContain('9007199254740993');
    const p = JSON.parse(raw) as Payload;
    expect(p.issue.number).toBe(9007199254740992); // lossy, as documented
    expect(render('issues', p).title).toBe(
      '[Codertocat/Hello-World] Issue opened: #9007199254740992 Spelling error in the README file',
    );
    const big = JSON.parse('{"action":"created","sender":{"login":"x","id":18446744073709551615}}');
    expect(render('star', big).author).toEqual({ name: 'x' });
  });

  it('truncates multi-byte titles and bodies on code-point boundaries', () => {
    const p = clone(examples('issues', 'opened')[0]);
    // 😀 is two UTF-16 code units; an odd prefix puts the cut inside a pair.
    p.issue.title = 'x' + '😀'.repeat(300);
    p.issue.body = '漢字'.repeat(3000);
    p.repository.full_name = '界'.repeat(10);
    const embed = render('issues', p);
    expect(embed.title!.length).toBeLessThanOrEqual(EMBED_LIMITS.title);
    expect(embed.title!.length).toBeGreaterThan(EMBED_LIMITS.title - 3);
    expect(embed.title!.endsWith('…')).toBe(true);
    expect(embed.title).not.toMatch(LONE_SURROGATE);
    expect(embed.description!.length).toBeLessThanOrEqual(EMBED_LIMITS.description);
    expect(embed.description!.endsWith('…')).toBe(true);

    const pr = clone(examples('pull_request', 'opened')[0]);
    pr.pull_request.title = '😀'.repeat(200);
    pr.sender.login = '🎉'.repeat(200);
    const prEmbed = render('pull_request', pr);
    expect(prEmbed.title!.length).toBeLessThanOrEqual(EMBED_LIMITS.title);
    expect(prEmbed.author!.name.length).toBeLessThanOrEqual(EMBED_LIMITS.author);
    expect(JSON.stringify(prEmbed)).not.toMatch(LONE_SURROGATE);
  });

  it('keeps long emoji commit lists under the description limit', () => {
    const p = clone(pushBase());
    p.commits = Array.from({ length: 5 }, (_, i) => commit(i, '🚀'.repeat(3000)));
    const embed = render('push', p);
    expect(embed.description!.length).toBeLessThanOrEqual(EMBED_LIMITS.description);
    expect(embed.description).not.toMatch(LONE_SURROGATE);
    expect(embed.description!.split('\n')).toHaveLength(5);
  });

  it('omits the author when there is no sender', () => {
    const p = clone(examples('fork')[0]);
    delete p.sender;
    const embed = render('fork', p);
    expect(embed.author).toBeUndefined();
    expect(embed.title).toBe('[Codertocat/Hello-World] Fork created: Octocoders/Hello-World');
  });
});

describe('transformRepoHost: CI and deployments, built from the examples', () => {
  const runExample = () =>
    clone(examples('workflow_run').find((p) => p.workflow_run.conclusion === 'success')!);

  it.each([
    ['failure', 'failed', COLORS.checkFailure],
    ['timed_out', 'timed out', COLORS.checkFailure],
    ['cancelled', 'cancelled', COLORS.checkNeutral],
    ['skipped', 'skipped', COLORS.checkNeutral],
  ])('colours a %s workflow run', (conclusion, word, color) => {
    const p = runExample();
    p.workflow_run.conclusion = conclusion;
    const embed = render('workflow_run', p);
    expect(embed.title).toBe(`[octo-org/octo-repo:master] Workflow ${word}: test`);
    expect(embed.color).toBe(color);
  });

  it('names the run by its own name first and survives a run without branch or commit', () => {
    const p = runExample();
    p.workflow_run.name = 'CI';
    p.workflow_run.head_branch = null;
    delete p.workflow_run.head_commit;
    delete p.workflow_run.head_sha;
    const embed = render('workflow_run', p);
    expect(embed.title).toBe('[octo-org/octo-repo] Workflow succeeded: CI');
    expect(embed.description).toBe('Run #163');
  });

  it('ignores successful, cancelled and unfinished jobs', () => {
    for (const p of examples('workflow_job')) {
      if (p.workflow_job.conclusion === 'failure') continue;
      expect({ p: p.workflow_job.status, draft: transformRepoHost('workflow_job', p) }).toEqual({
        p: p.workflow_job.status,
        draft: null,
      });
    }
    const cancelled = clone(examples('workflow_job', 'completed')[0]);
    cancelled.workflow_job.conclusion = 'cancelled';
    expect(transformRepoHost('workflow_job', cancelled)).toBeNull();
  });

  it('truncates a long list of failed steps', () => {
    const p = clone(
      examples('workflow_job', 'completed').find((e) => e.workflow_job.conclusion === 'failure')!,
    );
    p.workflow_job.steps = Array.from({ length: 200 }, (_, i) => ({
      name: `step ${i} ${'é'.repeat(10)}`,
      conclusion: 'failure',
    }));
    const embed = render('workflow_job', p);
    expect(embed.description!.length).toBeLessThanOrEqual(500);
    expect(embed.description!.startsWith('Failed step: step 0 ')).toBe(true);
  });

  function deployment(state: string, urls: Record<string, string>): Payload {
    const p = clone(examples('deployment_status')[0]);
    p.deployment_status.state = state;
    Object.assign(p.deployment_status, urls);
    return p;
  }

  it('links a successful deployment to its environment, a failed one to its logs', () => {
    const urls = {
      environment_url: 'https://staging.example.com',
      target_url: 'https://ci.example.com/runs/9',
      description: 'Deployed by the pipeline',
    };
    expect(render('deployment_status', deployment('success', urls))).toMatchObject({
      title: '[Codertocat/Hello-World] Deployment to production succeeded',
      url: 'https://staging.example.com',
      description: 'Deployed by the pipeline\nRef `master` (`f95f852`)',
      color: COLORS.checkSuccess,
    });
    for (const [state, word] of [
      ['failure', 'failed'],
      ['error', 'errored'],
    ]) {
      expect(render('deployment_status', deployment(state, urls))).toMatchObject({
        title: `[Codertocat/Hello-World] Deployment to production ${word}`,
        url: 'https://ci.example.com/runs/9',
        color: COLORS.checkFailure,
      });
    }
  });

  it('skips queued, pending, waiting and inactive deployment statuses', () => {
    for (const state of ['queued', 'pending', 'waiting', 'inactive', 'constructor', '']) {
      expect({
        state,
        draft: transformRepoHost('deployment_status', deployment(state, {})),
      }).toEqual({ state, draft: null });
    }
  });
});

describe('transformRepoHost with Gitea, Forgejo and Gogs deliveries', () => {
  const gitea = {
    name: 'alice',
    url: 'https://gitea.example.com/alice',
    icon_url: 'https://gitea.example.com/avatars/1f1e2d3c',
  };

  it('renders a Gitea push (compare_url, total_commits, usernames, non-ASCII messages)', () => {
    expect(render('push', giteaPush)).toEqual({
      title: '[alice/webapp:main] 2 new commits',
      url: giteaPush.compare_url,
      description: [
        '[`5e3b1c0`](https://gitea.example.com/alice/webapp/commit/5e3b1c0a7d2f4e6b8a9c0d1e2f3a4b5c6d7e8f90) Übersetzung: 日本語 ✓ in the login form - Alice Liddell',
        '[`bffeb74`](https://gitea.example.com/alice/webapp/commit/bffeb74224043ba2feb48d137756c8a9331c449a) Fix the login redirect - ci-bot',
      ].join('\n'),
      color: COLORS.push,
      author: gitea,
    });
  });

  it('counts the commits Gitea left out of the list', () => {
    const p = clone(giteaPush);
    p.total_commits = 12;
    const embed = render('push', p);
    expect(embed.title).toBe('[alice/webapp:main] 12 new commits');
    expect(embed.description!.split('\n').at(-1)).toBe('… and 7 more');
  });

  it('reads new and deleted refs from all-zero SHAs when a push has no flags', () => {
    const created = clone(giteaPush);
    created.before = '0'.repeat(40);
    created.commits = [];
    created.compare_url = '';
    expect(render('push', created)).toMatchObject({
      title: '[alice/webapp] New branch created: main',
      url: 'https://gitea.example.com/alice/webapp',
    });
    const deleted = clone(giteaPush);
    deleted.after = '0'.repeat(40);
    deleted.commits = [];
    expect(render('push', deleted).title).toBe('[alice/webapp] Branch deleted: main');
  });

  it('takes the pusher as author when a push has no sender', () => {
    const p = clone(giteaPush);
    delete p.sender;
    expect(render('push', p).author).toEqual(gitea);
  });

  it('renders a Forgejo pull request, opened and merged', () => {
    const bob = {
      name: 'bob',
      url: 'https://codeberg.example.org/bob',
      icon_url: 'https://codeberg.example.org/avatars/9a8b7c',
    };
    expect(render('pull_request', forgejoPullRequest)).toEqual({
      title: '[bob/tool] Pull request opened: #7 Add a --dry-run flag',
      url: 'https://codeberg.example.org/bob/tool/pulls/7',
      description: 'Prints what would change without writing anything.\r\n\r\nCloses #5.',
      color: COLORS.prOpened,
      author: bob,
    });
    const merged = clone(forgejoPullRequest);
    merged.action = 'closed';
    merged.pull_request.merged = true;
    delete merged.pull_request.html_url;
    // Without html_url, Forgejo's `url` is the page itself.
    expect(render('pull_request', merged)).toEqual({
      title: '[bob/tool] Pull request merged: #7 Add a --dry-run flag',
      url: 'https://codeberg.example.org/bob/tool/pulls/7',
      color: COLORS.prMerged,
      author: bob,
    });
    for (const action of ['synchronized', 'label_updated', 'assigned', 'reviewed']) {
      expect(transformRepoHost('pull_request', { ...forgejoPullRequest, action })).toBeNull();
    }
  });

  it('renders a Gitea comment on a pull request (is_pull)', () => {
    expect(render('issue_comment', giteaIssueComment)).toEqual({
      title: '[alice/webapp] New comment on pull request #4 Dark mode',
      url: 'https://gitea.example.com/alice/webapp/pulls/4#issuecomment-1203',
      description: 'Looks good, one nit inline.',
      color: COLORS.comment,
      author: gitea,
    });
  });

  it('renders a Gitea release', () => {
    expect(render('release', giteaRelease)).toEqual({
      title: '[alice/webapp] New release published: Spring cleaning (v1.4.0)',
      url: 'https://gitea.example.com/alice/webapp/releases/tag/v1.4.0',
      description: '* Faster start-up\n* Fewer dependencies',
      color: COLORS.release,
      author: gitea,
    });
    expect(transformRepoHost('release', { ...giteaRelease, action: 'updated' })).toBeNull();
  });

  it('renders a Gogs issue: author from username, a page URL derived from the repository', () => {
    expect(render('issues', gogsIssues)).toEqual({
      title: '[dave/daemon] Issue opened: #3 Crash on empty config',
      url: 'https://gogs.example.net/dave/daemon/issues/3',
      description: 'Starting with an empty `config.ini` panics.',
      color: COLORS.issueOpened,
      author: { name: 'dave', icon_url: 'https://gogs.example.net/avatars/5' },
    });
  });

  it('never links an API URL as a page', () => {
    const p = clone(gogsIssues);
    p.issue.url = 'https://gogs.example.net/api/v1/repos/dave/daemon/issues/3';
    expect(render('issues', p).url).toBe('https://gogs.example.net/dave/daemon/issues/3');
  });

  it('returns null for the events only Gitea-family hosts send', () => {
    for (const event of [
      'pull_request_approved',
      'pull_request_rejected',
      'pull_request_comment',
      'wiki',
      'package',
    ]) {
      expect(transformRepoHost(event, giteaPush)).toBeNull();
    }
  });
});

describe('transformRepoHost on garbage', () => {
  const events = [
    ...new Set([...definitions.map((d) => d.name), 'unknown', '', '__proto__', 'constructor']),
  ];
  const garbage: unknown[] = [
    null,
    undefined,
    42,
    'x',
    true,
    [],
    {},
    { action: 42 },
    { action: 'opened', issue: null, repository: 7, sender: 'x' },
    { action: 'created', comment: [], issue: { number: {}, title: [] } },
    { ref: 5, commits: 'nope', deleted: 'yes', repository: { full_name: null } },
    { ref: 'refs/heads/x', commits: [null, 1, 'x', { id: 3, message: 4, author: null }] },
    { action: 'completed', check_run: { conclusion: {}, output: 'x' }, check_suite: [] },
    { action: 'submitted', review: { state: 5 }, pull_request: 'x' },
  ];

  it('never throws and returns null or a well-formed draft', () => {
    for (const event of events) {
      for (const payload of garbage) {
        // A throw here fails the test with the event and payload in the stack.
        const draft: MessageDraft | null = transformRepoHost(event, payload);
        if (draft !== null) {
          expect(draft.embeds).toHaveLength(1);
          expect(typeof draft.embeds[0].title).toBe('string');
        }
      }
    }
  });

  it('returns null for non-object payloads and unknown events', () => {
    for (const payload of [null, 42, 'x', [], undefined]) {
      expect(transformRepoHost('push', payload)).toBeNull();
    }
    expect(transformRepoHost('unknown', {})).toBeNull();
    expect(transformRepoHost('__proto__', {})).toBeNull();
    expect(transformRepoHost('constructor', {})).toBeNull();
    expect(transformRepoHost(undefined as unknown as string, {})).toBeNull();
  });

  it('renders what it can from sparse payloads', () => {
    expect(transformRepoHost('fork', {})).toEqual({
      embeds: [{ title: '[unknown] Fork created: unknown', color: COLORS.fork }],
    });
    const weird = { ref: 'refs/heads/x', commits: [null, { id: 3, message: 4, author: null }] };
    expect(render('push', weird)).toEqual({
      title: '[unknown:x] 2 new commits',
      description: '`???????` (no message) - unknown\n`3` 4 - unknown',
      color: COLORS.push,
    });
  });

  it('survives payloads whose getters throw', () => {
    const hostile = {
      action: 'opened',
      get issue(): never {
        throw new Error('boom');
      },
    };
    expect(transformRepoHost('issues', hostile)).toBeNull();
    const proxy = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
      },
    );
    expect(transformRepoHost('push', proxy)).toBeNull();
  });
});
