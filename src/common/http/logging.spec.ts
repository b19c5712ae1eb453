import pino from 'pino';
import type { HttpRequest } from './http-types';
import { loggedUrlOf, PinoNestLogger, redactedUrl } from './logging';

const WEBHOOK = { params: ['token'], query: [] };
// The static segments of the routes below, as addRouteWords gathers them.
const routeWords = new Set([
  'v1',
  'webhooks',
  'repohost',
  'archives',
  'download',
  'guilds',
  'members',
  'users',
  '@me',
  'auth',
  'handoff',
  'status',
  '.well-known',
  'service',
]);

describe('redactedUrl', () => {
  it.each([
    [
      'a routed webhook URL: the token parameter',
      {
        url: '/v1/webhooks/123/abcDEF123/repohost?wait=true',
        template: '/v1/webhooks/:webhook_id/:token/repohost',
        params: { webhook_id: '123', token: 'abcDEF123' },
        redaction: WEBHOOK,
      },
      '/v1/webhooks/123/[redacted]/repohost?wait=true',
    ],
    [
      'an encoded or doubled path, logged as the route it reached',
      {
        url: '/v1/%77ebhooks/123/abcDEF123',
        template: '/v1/webhooks/:webhook_id/:token',
        params: { webhook_id: '123', token: 'abcDEF123' },
        redaction: WEBHOOK,
      },
      '/v1/webhooks/123/[redacted]',
    ],
    [
      'a declared query credential, and the ones no route may log',
      {
        url: '/v1/archives/9/download?expires=1&signature=s1g&code=c&x=1',
        template: '/v1/archives/:archiveId/download',
        params: { archiveId: '9' },
        redaction: { params: [], query: ['signature'] },
      },
      '/v1/archives/9/download?expires=1&signature=[redacted]&code=[redacted]&x=1',
    ],
    [
      'a credential where a route takes an id (a webhook token without its id)',
      {
        url: '/v1/webhooks/abcDEF123',
        template: '/v1/webhooks/:webhook_id',
        params: { webhook_id: 'abcDEF123' },
        redaction: { params: [], query: [] },
      },
      '/v1/webhooks/[redacted]',
    ],
    [
      'a credential in an id parameter, even one in lower case or across an encoded slash',
      {
        url: '/v1/archives/vgat9hcj%2Fs1g/download',
        template: '/v1/archives/:archiveId/download',
        params: { archiveId: 'vgat9hcj/s1g' },
        redaction: { params: [], query: [] },
      },
      '/v1/archives/[redacted]/download',
    ],
    [
      'an unrouted path: anything but ids and route words',
      { url: '/v1/webhooks/123/abcDEF123/unknown?token=t&x=1' },
      '/v1/webhooks/123/[redacted]/[redacted]?token=[redacted]&x=[redacted]',
    ],
    [
      'an unrouted path: a lower-case credential (a handoff code typed around a typo)',
      { url: '/v1/auth/handoff/vgat-9hcj/statu' },
      '/v1/auth/handoff/[redacted]/[redacted]',
    ],
    [
      'a routed path refused before its policy was known: every query value',
      { url: '/v1/guilds/1?limit=5', template: '/v1/guilds/:guild_id', params: { guild_id: '1' } },
      '/v1/guilds/1?limit=[redacted]',
    ],
  ])('hides %s', (_what, req, expected) => {
    expect(redactedUrl({ ...req, routeWords })).toBe(expected);
  });

  it('leaves what a route declares no credential alone', () => {
    expect(
      redactedUrl({
        url: '/v1/guilds/1/members?limit=5',
        template: '/v1/guilds/:guild_id/members',
        params: { guild_id: '1' },
        redaction: { params: [], query: [] },
        routeWords,
      }),
    ).toBe('/v1/guilds/1/members?limit=5');
    expect(redactedUrl({ url: '/v1/users/@me', routeWords })).toBe('/v1/users/@me');
    expect(redactedUrl({ url: '/v1/%75sers/@me', routeWords })).toBe('/v1/%75sers/@me');
    expect(redactedUrl({ url: '/.well-known/service', routeWords })).toBe('/.well-known/service');
  });

  it('shows only ids without the route words (an instance whose routes were not collected)', () => {
    expect(redactedUrl({ url: '/v1/guilds/1', routeWords: new Set() })).toBe(
      '/[redacted]/[redacted]/1',
    );
  });
});

describe('PinoNestLogger', () => {
  const capture = (level: string) => {
    const lines: Array<{ level: number; context?: string; msg: string }> = [];
    const log = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    return { lines, nest: new PinoNestLogger(log) };
  };

  it("logs Nest's start-up chatter (modules, controllers, routes) at debug, the rest at info", () => {
    const say = (nest: PinoNestLogger) => {
      nest.log('ConfigModule dependencies initialized', 'InstanceLoader');
      nest.log('UsersController {/v1/users}:', 'RoutesResolver');
      nest.log('Mapped {/v1/users/@me, GET} route', 'RouterExplorer');
      nest.log('listening on http://localhost:8080', 'Parley');
    };
    const atInfo = capture('info');
    say(atInfo.nest);
    expect(atInfo.lines).toEqual([
      expect.objectContaining({
        level: 30,
        context: 'Parley',
        msg: 'listening on http://localhost:8080',
      }),
    ]);
    const atDebug = capture('debug');
    say(atDebug.nest);
    expect(atDebug.lines.map((l) => [l.level, l.context])).toEqual([
      [20, 'InstanceLoader'],
      [20, 'RoutesResolver'],
      [20, 'RouterExplorer'],
      [30, 'Parley'],
    ]);
  });
});

describe('loggedUrlOf', () => {
  const request = (originalUrl: string, params: Record<string, string>): HttpRequest =>
    ({
      id: 'r',
      method: 'POST',
      originalUrl,
      headers: {},
      params,
      query: {},
      routePolicy: { redaction: WEBHOOK },
    }) as unknown as HttpRequest;

  it('logs a request on Discord’s paths under the prefix it came in on, still redacted', () => {
    const template = '/v1/webhooks/:webhook_id/:token';
    const params = { webhook_id: '123', token: 'abcDEF123' };
    expect(
      loggedUrlOf(request('/api/v10/webhooks/123/abcDEF123', params), template, routeWords),
    ).toBe('/api/v10/webhooks/123/[redacted]');
    expect(
      loggedUrlOf(request('/api/v9/webhooks/123/abcDEF123', params), template, routeWords),
    ).toBe('/api/v9/webhooks/123/[redacted]');
    expect(loggedUrlOf(request('/v1/webhooks/123/abcDEF123', params), template, routeWords)).toBe(
      '/v1/webhooks/123/[redacted]',
    );
  });
});
