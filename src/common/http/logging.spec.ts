import fastify from 'fastify';
import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import pino from 'pino';
import type { ParleyRequest } from '../auth/caller';
import type { RoutePolicy } from './route-policies';
import { redactedUrl, registerRequestLogging, requestIdOf } from './logging';

const WEBHOOK = { params: ['token'], query: [] };
// The static segments of the routes below, as collectRouteWords gathers them.
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

describe('registerRequestLogging', () => {
  async function serve(level: string) {
    const lines: string[] = [];
    const log = pino(
      { level, base: { pid: process.pid } },
      { write: (l: string) => lines.push(l) },
    );
    const app = fastify({ genReqId: requestIdOf });
    const requestLog = registerRequestLogging(app, log);
    // What app.setup.ts's onSend hook does for streamed bodies.
    app.addHook('onSend', (req, reply, payload, done) => {
      if (typeof (payload as { pipe?: unknown } | null)?.pipe === 'function') {
        requestLog.streamed(req, reply);
      }
      done(null, payload);
    });
    // What the caller guard does on a Parley route: the route's declared credentials.
    app.addHook('preHandler', (req, _reply, done) => {
      (req as unknown as ParleyRequest).routePolicy = {
        redaction: { params: ['token'], query: [] },
      } as unknown as RoutePolicy;
      done();
    });
    app.get('/v1/webhooks/:id/:token', (_req, reply) => reply.code(204).send());
    app.get('/v1/boom', (_req, reply) => reply.code(500).send({}));
    app.get('/v1/health/live', () => ({ ok: true }));
    // A download whose stream ends a while after its last byte (a file read hitting EOF late).
    app.get('/v1/archives/:id/download', (_req, reply) => {
      const body = new Readable({ read() {} });
      body.push('zip!');
      setTimeout(() => body.push(null), 100);
      return reply.header('Content-Length', '4').send(body);
    });
    await app.ready();
    return { app, lines, log };
  }

  it('writes one JSON line per request, as pino would, with the secret redacted', async () => {
    const { app, lines, log } = await serve('info');
    const res = await app.inject({
      url: '/v1/webhooks/1/s3cr3t?q=%22"\\',
      headers: { 'x-request-id': 'req-1' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['x-request-id']).toBe('req-1');
    await app.inject({ url: '/v1/boom' });
    await app.inject({ url: '/v1/health/live' });
    // Unrouted: the words of the routes registered after the hooks are known, nothing else.
    expect((await app.inject({ url: '/v1/webhooks/vgat9hcj' })).statusCode).toBe(404);
    log.info({ reqId: 'req-1' }, 'request');
    expect(lines).toHaveLength(4);
    const [first, boom, unrouted, viaPino] = lines.map(
      (l) => JSON.parse(l) as Record<string, unknown>,
    );
    expect(first).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: process.pid,
      reqId: 'req-1',
      method: 'GET',
      url: '/v1/webhooks/1/[redacted]?q=%22%22\\', // the backslash needed escaping
      status: 204,
      ms: expect.any(Number),
      msg: 'request',
    });
    expect(lines[0]).not.toContain('s3cr3t');
    expect(boom).toMatchObject({ level: 50, status: 500, url: '/v1/boom' });
    expect(boom.reqId).toMatch(/^[0-9a-f-]{36}$/);
    expect(unrouted).toMatchObject({ status: 404, url: '/v1/webhooks/[redacted]' });
    // Same key order as pino's own lines.
    expect(Object.keys(first).slice(0, 4)).toEqual(
      Object.keys(viaPino).slice(0, 3).concat('reqId'),
    );
    await app.close();
  });

  it('logs a streamed response whose client hung up before the stream ended', async () => {
    const { app, lines } = await serve('info');
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      // The client has its 4 bytes and closes the connection: the response never finishes.
      const body = await new Promise<string>((resolve, reject) => {
        const path = '/v1/archives/7/download?signature=s1g';
        get({ host: '127.0.0.1', port, path, agent: false })
          .on('response', (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve(text));
          })
          .on('error', reject);
      });
      expect(body).toBe('zip!');
      await new Promise((r) => setTimeout(r, 200));
      expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
        expect.objectContaining({
          status: 200,
          url: '/v1/archives/7/download?signature=[redacted]',
          msg: 'request',
        }),
      ]);
    } finally {
      await app.close();
    }
  });

  it('writes nothing below info', async () => {
    const { app, lines } = await serve('warn');
    expect((await app.inject({ url: '/v1/boom' })).headers['x-request-id']).toEqual(
      expect.any(String),
    );
    expect(lines).toEqual([]);
    await app.close();
  });
});
