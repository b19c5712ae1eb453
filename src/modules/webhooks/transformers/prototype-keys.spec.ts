import { transformChatCompat } from './chatcompat.transformer';
import { transformErrorTracker } from './errortracker.transformer';
import { transformRepoHost } from './repohost.transformer';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const examples = require('@octokit/webhooks-examples') as Array<{
  name: string;
  examples: unknown[];
}>;

/** Names every plain object answers through Object.prototype. */
const PROTOTYPE_NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'];

/** The fields transformers look their wording or colour up by. */
const LOOKED_UP = new Set(['action', 'state', 'conclusion', 'level', 'color', 'status']);

/** A deep copy of `value` with every looked-up string field set to `name`. */
function withLookups(value: unknown, name: string): unknown {
  if (Array.isArray(value)) return value.map((v) => withLookups(v, name));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = LOOKED_UP.has(k) && typeof v === 'string' ? name : withLookups(v, name);
  }
  return out;
}

/** What a prototype member looks like once it has been turned into text. */
const LEAKED = /native code|\[object |function |=>/;

/**
 * Security finding 12: transformers looked actions, states and levels up in plain objects, so
 * `"action": "constructor"` posted `function Object() { [native code] }`. Every real payload of
 * every supported format, with each looked-up field set to each prototype name, must render
 * without any of it.
 */
describe('payload values that name Object.prototype members', () => {
  const sentry = {
    installation: { uuid: 'a8e5d37a-696c-4c54-adb5-b3f28d64c7de' },
    actor: { type: 'application', id: 'sentry', name: 'Sentry' },
  };
  const sentryEvent = {
    event_id: 'e1',
    title: 'TypeError: x is undefined',
    level: 'error',
    web_url: 'https://acme.sentry.io/issues/1/events/e1/',
    issue_url: 'https://acme.sentry.io/api/0/issues/1/',
    timestamp: '2024-03-01T10:00:00Z',
  };
  const errorTrackerPayloads: Array<[string, unknown]> = [
    [
      'issue',
      {
        ...sentry,
        action: 'created',
        data: {
          issue: {
            id: '1',
            title: 'TypeError',
            shortId: 'FRONT-1',
            level: 'error',
            status: 'unresolved',
            project: { slug: 'front-end' },
            web_url: 'https://acme.sentry.io/issues/1/',
          },
        },
      },
    ],
    ['error', { ...sentry, action: 'created', data: { error: sentryEvent } }],
    [
      'event_alert',
      { ...sentry, action: 'triggered', data: { event: sentryEvent, triggered_rule: 'Rule' } },
    ],
    [
      'metric_alert',
      {
        ...sentry,
        action: 'critical',
        data: { metric_alert: { title: 'Error rate', alert_rule: { name: 'Rate' } } },
      },
    ],
    ['comment', { ...sentry, action: 'created', data: { comment: 'hi', issue_id: '1' } }],
    [
      'legacy',
      { project_name: 'Front End', level: 'warning', message: 'boom', event: sentryEvent },
    ],
  ];
  const chatPayloads = [
    { text: 'deploy', attachments: [{ color: 'good', title: 'Build', text: 'passed' }] },
  ];

  it.each(PROTOTYPE_NAMES)('%s renders as nothing special', (name) => {
    const rendered: unknown[] = [];
    for (const { name: event, examples: payloads } of examples) {
      for (const payload of payloads) {
        rendered.push(transformRepoHost(event, withLookups(payload, name)));
      }
    }
    for (const [resource, payload] of errorTrackerPayloads) {
      rendered.push(
        transformErrorTracker(
          resource === 'legacy' ? undefined : resource,
          withLookups(payload, name),
        ),
      );
    }
    for (const payload of chatPayloads)
      rendered.push(transformChatCompat(withLookups(payload, name)));
    // The mutation reached the transformers: most payloads still render something.
    expect(rendered.filter((r) => r !== null).length).toBeGreaterThan(20);
    const text = JSON.stringify(rendered);
    expect(text.match(LEAKED)).toBeNull();
  });
});
