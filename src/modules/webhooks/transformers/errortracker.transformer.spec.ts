import { COLORS } from './colors';
import { Embed } from '../../guilds/embeds/embed';
import { levelColor, transformErrorTracker } from './errortracker.transformer';
import { EMBED_LIMITS } from '../../guilds/embeds/truncate';

// Payloads modelled on Sentry's integration-platform webhook docs and the legacy webhooks plugin.

const installation = { uuid: 'a8e5d37a-696c-4c54-adb5-b3f28d64c7de' };
const sentryActor = { type: 'application', id: 'sentry', name: 'Sentry' };

function issuePayload(action: string, issue: Record<string, unknown> = {}) {
  return {
    action,
    installation,
    data: {
      issue: {
        id: '1170820242',
        shareId: null,
        shortId: 'FRONT-END-1',
        title: "TypeError: Cannot read properties of undefined (reading 'id')",
        culprit: 'app/components/modal in handleClick',
        permalink: null,
        logger: null,
        level: 'error',
        status: 'unresolved',
        statusDetails: {},
        isPublic: false,
        platform: 'javascript',
        project: { id: '1', name: 'front-end', slug: 'front-end', platform: 'javascript' },
        type: 'error',
        metadata: {
          type: 'TypeError',
          value: "Cannot read properties of undefined (reading 'id')",
        },
        numComments: 0,
        assignedTo: null,
        isBookmarked: false,
        hasSeen: false,
        count: '12',
        userCount: 3,
        firstSeen: '2024-03-01T10:00:00.123000Z',
        lastSeen: '2024-03-02T11:30:00.456000Z',
        url: 'https://sentry.io/api/0/organizations/acme/issues/1170820242/',
        web_url: 'https://acme.sentry.io/issues/1170820242/',
        project_url: 'https://acme.sentry.io/issues/?project=1',
        ...issue,
      },
    },
    actor: sentryActor,
  };
}

const sentryEvent = {
  event_id: 'a8e5d37a696c4c54adb5b3f28d64c7de',
  project: 1,
  release: 'front-end@1.4.2',
  dist: null,
  platform: 'javascript',
  message: '',
  datetime: '2024-03-02T11:30:00.456000Z',
  tags: [
    ['browser', 'Chrome 122.0'],
    ['environment', 'production'],
    ['level', 'error'],
    ['release', 'front-end@1.4.2'],
  ],
  culprit: 'app/components/modal in handleClick',
  level: 'error',
  location: 'app/components/modal.jsx',
  logger: '',
  metadata: { type: 'ReferenceError', value: 'blooopy is not defined' },
  title: 'ReferenceError: blooopy is not defined',
  type: 'error',
  url: 'https://sentry.io/api/0/projects/acme/front-end/events/a8e5d37a696c4c54adb5b3f28d64c7de/',
  web_url: 'https://acme.sentry.io/issues/1170820242/events/a8e5d37a696c4c54adb5b3f28d64c7de/',
  issue_url: 'https://sentry.io/api/0/issues/1170820242/',
  issue_id: '1170820242',
};

const errorPayload = {
  action: 'created',
  installation,
  data: { error: sentryEvent },
  actor: sentryActor,
};

const eventAlertPayload = {
  action: 'triggered',
  installation,
  data: {
    event: { ...sentryEvent, level: 'fatal' },
    triggered_rule: 'Notify on new production errors',
    issue_alert: {
      title: 'Notify on new production errors',
      settings: [{ name: 'channel', value: '#alerts' }],
    },
  },
  actor: sentryActor,
};

function metricAlertPayload(action: string) {
  return {
    action,
    installation,
    data: {
      metric_alert: {
        alert_rule: {
          id: '7',
          name: 'Error rate too high',
          dataset: 'events',
          aggregate: 'count()',
        },
        date_closed: null,
        date_detected: '2024-03-02T12:00:00Z',
        date_started: '2024-03-02T11:59:00Z',
        id: '2',
        identifier: 2,
        organization_id: '5',
        projects: ['front-end'],
        status: 20,
        title: 'Error rate too high',
      },
      description_title: `${action === 'resolved' ? 'Resolved' : 'Critical'}: Error rate too high`,
      description_text: '1000 events in the last 10 minutes',
      web_url: 'https://acme.sentry.io/alerts/rules/details/7/?alert=2',
    },
    actor: sentryActor,
  };
}

const legacyPayload = {
  id: '27379932',
  project: 'front-end',
  project_name: 'Front End',
  project_slug: 'front-end',
  logger: null,
  level: 'warning',
  culprit: 'raven.scripts.runner in main',
  message: 'This is an example Python exception',
  url: 'https://acme.sentry.io/issues/27379932/?referrer=webhooks_plugin',
  triggering_rules: ['Slow requests'],
  event: {
    event_id: '4dc3e41b08a14a7cb1a1e9b2a0b6f4a2',
    level: 'warning',
    platform: 'python',
    timestamp: 1411407346,
    environment: 'prod',
    tags: [
      ['environment', 'prod'],
      ['level', 'warning'],
    ],
    metadata: { title: 'This is an example Python exception' },
    culprit: 'raven.scripts.runner in main',
    title: 'ZeroDivisionError: division by zero',
  },
};

function render(resource: string | undefined, payload: unknown): Embed {
  const draft = transformErrorTracker(resource, payload);
  expect(draft).not.toBeNull();
  expect(draft!.embeds).toHaveLength(1);
  expect(draft!.content).toBeUndefined();
  return draft!.embeds[0];
}

describe('transformErrorTracker: integration platform', () => {
  it('renders a new issue', () => {
    expect(render('issue', issuePayload('created'))).toEqual({
      title: "[front-end] New issue: TypeError: Cannot read properties of undefined (reading 'id')",
      url: 'https://acme.sentry.io/issues/1170820242/',
      description: '`app/components/modal in handleClick`',
      color: COLORS.error,
      timestamp: '2024-03-01T10:00:00.123Z',
      author: { name: 'Sentry' },
      fields: [
        { name: 'Short ID', value: 'FRONT-END-1', inline: true },
        { name: 'Level', value: 'error', inline: true },
        { name: 'Status', value: 'unresolved', inline: true },
        { name: 'Events', value: '12', inline: true },
        { name: 'Users', value: '3', inline: true },
      ],
    });
  });

  it.each([
    ['resolved', 'Issue resolved', COLORS.resolved],
    ['ignored', 'Issue ignored', COLORS.warning],
    ['unresolved', 'Issue unresolved', COLORS.warning],
    ['archived', 'Issue archived', COLORS.warning],
    ['escalating', 'Issue escalating', COLORS.warning],
  ])('renders issue %s', (action, verb, color) => {
    const embed = render('issue', issuePayload(action, { level: 'warning', status: action }));
    expect(embed.title).toBe(
      `[front-end] ${verb}: TypeError: Cannot read properties of undefined (reading 'id')`,
    );
    expect(embed.color).toBe(color);
    expect(embed.timestamp).toBe('2024-03-02T11:30:00.456Z'); // lastSeen for updates
  });

  it('names the assignee and the human actor', () => {
    const payload = {
      ...issuePayload('assigned', {
        assignedTo: { type: 'user', id: '9', name: 'Ada Lovelace', email: 'ada@example.com' },
      }),
      actor: { type: 'user', id: '9', name: 'Grace Hopper' },
    };
    const embed = render('issue', payload);
    expect(embed.title).toMatch(/^\[front-end\] Issue assigned: /);
    expect(embed.description).toBe(
      '`app/components/modal in handleClick`\nAssigned to **Ada Lovelace**',
    );
    expect(embed.author).toEqual({ name: 'Grace Hopper' });
  });

  it('falls back to the permalink and slug', () => {
    const embed = render(
      'issue',
      issuePayload('created', {
        web_url: undefined,
        permalink: 'https://acme.sentry.io/share/issue/abc/',
        project: { slug: 'api' },
      }),
    );
    expect(embed.url).toBe('https://acme.sentry.io/share/issue/abc/');
    expect(embed.title).toMatch(/^\[api\] New issue: /);
  });

  it.each([
    ['fatal', COLORS.fatal],
    ['error', COLORS.error],
    ['warning', COLORS.warning],
    ['info', COLORS.info],
    ['debug', COLORS.debug],
    ['WARNING', COLORS.warning],
    ['sample', COLORS.error],
    [undefined, COLORS.error],
  ])('colours level %p', (level, color) => {
    expect(levelColor(level)).toBe(color);
    expect(render('issue', issuePayload('created', { level })).color).toBe(color);
  });

  it('renders an error', () => {
    expect(render('error', errorPayload)).toEqual({
      title: 'Error: ReferenceError: blooopy is not defined',
      url: sentryEvent.web_url,
      description: '`app/components/modal in handleClick`',
      color: COLORS.error,
      timestamp: '2024-03-02T11:30:00.456Z',
      author: { name: 'Sentry' },
      fields: [
        { name: 'Level', value: 'error', inline: true },
        { name: 'Platform', value: 'javascript', inline: true },
        { name: 'Environment', value: 'production', inline: true },
        { name: 'Release', value: 'front-end@1.4.2', inline: true },
      ],
    });
  });

  it('reads tags given as {key, value} objects', () => {
    const payload = {
      ...errorPayload,
      data: { error: { ...sentryEvent, tags: [{ key: 'environment', value: 'staging' }] } },
    };
    expect(render('error', payload).fields).toContainEqual({
      name: 'Environment',
      value: 'staging',
      inline: true,
    });
  });

  it('renders an event alert', () => {
    expect(render('event_alert', eventAlertPayload)).toEqual({
      title: 'ReferenceError: blooopy is not defined',
      url: sentryEvent.web_url,
      description:
        'Alert rule **Notify on new production errors** triggered\n`app/components/modal in handleClick`',
      color: COLORS.fatal,
      timestamp: '2024-03-02T11:30:00.456Z',
      author: { name: 'Sentry' },
      fields: [
        { name: 'Level', value: 'fatal', inline: true },
        { name: 'Platform', value: 'javascript', inline: true },
        { name: 'Environment', value: 'production', inline: true },
        { name: 'Release', value: 'front-end@1.4.2', inline: true },
      ],
    });
  });

  it.each([
    ['critical', 'Critical: Error rate too high', COLORS.error, 'Critical'],
    ['warning', 'Critical: Error rate too high', COLORS.warning, 'Warning'],
    ['resolved', 'Resolved: Error rate too high', COLORS.resolved, 'Resolved'],
  ])('renders a %s metric alert coloured by action', (action, title, color, status) => {
    expect(render('metric_alert', metricAlertPayload(action))).toEqual({
      title,
      url: 'https://acme.sentry.io/alerts/rules/details/7/?alert=2',
      description: '1000 events in the last 10 minutes',
      color,
      timestamp: '2024-03-02T12:00:00.000Z',
      author: { name: 'Sentry' },
      fields: [
        { name: 'Status', value: status, inline: true },
        { name: 'Alert rule', value: 'Error rate too high', inline: true },
      ],
    });
  });

  it('renders a created comment and ignores other comment actions', () => {
    const comment = {
      action: 'created',
      installation,
      data: {
        comment_id: '123',
        issue_id: '1170820242',
        project_slug: 'front-end',
        timestamp: '2024-03-02T12:05:00Z',
        comment: 'Looking into this now',
      },
      actor: { type: 'user', id: '9', name: 'Grace Hopper' },
    };
    expect(render('comment', comment)).toEqual({
      title: '[front-end] New comment on issue 1170820242',
      description: 'Looking into this now',
      color: COLORS.comment,
      timestamp: '2024-03-02T12:05:00.000Z',
      author: { name: 'Grace Hopper' },
    });
    expect(transformErrorTracker('comment', { ...comment, action: 'deleted' })).toBeNull();
  });

  it('returns null for installation hooks and unknown resources', () => {
    const install = {
      action: 'created',
      installation,
      data: { installation: { app: { uuid: 'x', slug: 'parley' }, status: 'installed' } },
      actor: { type: 'user', id: '1', name: 'Admin' },
    };
    expect(transformErrorTracker('installation', install)).toBeNull();
    expect(transformErrorTracker(undefined, install)).toBeNull();
    expect(transformErrorTracker('seer', issuePayload('created'))).toBeNull();
  });

  it('trusts the header over the body', () => {
    // The header says error but the body has only an issue: nothing sensible to render.
    expect(transformErrorTracker('error', issuePayload('created'))).toBeNull();
    expect(render(' Issue ', issuePayload('created')).title).toMatch(/New issue/);
  });

  it('truncates long titles without splitting emoji', () => {
    const embed = render('issue', issuePayload('created', { title: 'E' + '💥'.repeat(400) }));
    expect(embed.title!.length).toBeLessThanOrEqual(EMBED_LIMITS.title);
    expect(embed.title).not.toMatch(
      /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
    );
  });
});

describe('transformErrorTracker: missing header', () => {
  it.each([
    [
      'issue',
      issuePayload('created'),
      "[front-end] New issue: TypeError: Cannot read properties of undefined (reading 'id')",
    ],
    ['error', errorPayload, 'Error: ReferenceError: blooopy is not defined'],
    ['event_alert', eventAlertPayload, 'ReferenceError: blooopy is not defined'],
    ['metric_alert', metricAlertPayload('critical'), 'Critical: Error rate too high'],
  ])('infers %s from the body', (resource, payload, title) => {
    expect(render(undefined, payload).title).toBe(title);
    expect(render('', payload).title).toBe(title);
    expect(transformErrorTracker(undefined, payload)).toEqual(
      transformErrorTracker(resource, payload),
    );
  });
});

describe('transformErrorTracker: legacy plugin body', () => {
  it('renders the flat body', () => {
    expect(render(undefined, legacyPayload)).toEqual({
      title: '[Front End] ZeroDivisionError: division by zero',
      url: 'https://acme.sentry.io/issues/27379932/?referrer=webhooks_plugin',
      description: '`raven.scripts.runner in main`',
      color: COLORS.warning,
      timestamp: '2014-09-22T17:35:46.000Z',
      fields: [
        { name: 'Level', value: 'warning', inline: true },
        { name: 'Environment', value: 'prod', inline: true },
        { name: 'Rules', value: 'Slow requests', inline: true },
      ],
    });
  });

  it('falls back to the message when the event has no title', () => {
    const { event, ...flat } = legacyPayload;
    expect(event.title).toBeDefined();
    const embed = render(undefined, flat);
    expect(embed.title).toBe('[Front End] This is an example Python exception');
    expect(embed.timestamp).toBeUndefined();
  });

  it('is recognised even when a resource header is sent', () => {
    expect(render('issue', legacyPayload).title).toBe(
      '[Front End] ZeroDivisionError: division by zero',
    );
  });
});

describe('transformErrorTracker on garbage', () => {
  const bodies: unknown[] = [
    null,
    undefined,
    42,
    'x',
    [],
    {},
    { data: null },
    { data: [] },
    { action: 5, data: { issue: 'x' } },
    { action: 'created', data: { issue: { title: {}, project: 3, level: [], firstSeen: 'soon' } } },
    { data: { error: { tags: 'nope', datetime: {} } } },
    { data: { event: { tags: [null, 1, ['environment']] } } },
    { action: {}, data: { metric_alert: [] } },
    { action: 'created', data: { comment: 42 } },
    { project: {}, event: 'x' },
  ];
  const resources = [
    undefined,
    '',
    'issue',
    'error',
    'event_alert',
    'metric_alert',
    'comment',
    'installation',
    'nope',
    '__proto__',
  ];

  it('never throws', () => {
    for (const resource of resources) {
      for (const body of bodies) {
        const draft = transformErrorTracker(resource, body);
        if (draft !== null) expect(draft.embeds).toHaveLength(1);
      }
    }
  });

  it('returns null for bodies that are not objects or not recognised', () => {
    for (const body of [null, 42, 'x', [], {}, { data: null }]) {
      expect(transformErrorTracker(undefined, body)).toBeNull();
    }
  });

  it('renders defaults for a sparse issue', () => {
    expect(transformErrorTracker('issue', { action: 'created', data: { issue: {} } })).toEqual({
      embeds: [{ title: 'New issue: Untitled issue', color: COLORS.error }],
    });
  });

  it('survives throwing getters', () => {
    const hostile = {
      get data(): never {
        throw new Error('boom');
      },
    };
    expect(transformErrorTracker('issue', hostile)).toBeNull();
  });
});
