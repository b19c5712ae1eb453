import fastify from 'fastify';
import pino from 'pino';
import { redactUrl, registerRequestLogging, requestIdOf } from './logging';

describe('redactUrl', () => {
  it.each([
    [
      '/v1/webhooks/123/abcDEF123/repohost?wait=true',
      '/v1/webhooks/123/[redacted]/repohost?wait=true',
    ],
    ['/v1/webhooks/123/abcDEF123', '/v1/webhooks/123/[redacted]'],
    ['/v1/auth/handoff/ABCD-EFGH/status', '/v1/auth/handoff/[redacted]/status'],
    [
      '/v1/auth/ip-authorization/poll?ticket=secret&x=1',
      '/v1/auth/ip-authorization/poll?ticket=[redacted]&x=1',
    ],
    ['/cb?state=s&code=c', '/cb?state=[redacted]&code=[redacted]'],
  ])('hides the secret in %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('leaves ordinary URLs alone', () => {
    for (const url of [
      '/v1/webhooks/123',
      '/v1/auth/handoff/initiate',
      '/v1/users/@me',
      '/v1/guilds/1?limit=5',
    ]) {
      expect(redactUrl(url)).toBe(url);
    }
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
    registerRequestLogging(app, log);
    app.get('/v1/webhooks/:id/:token', (_req, reply) => reply.code(204).send());
    app.get('/v1/boom', (_req, reply) => reply.code(500).send({}));
    app.get('/v1/health/live', () => ({ ok: true }));
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
    log.info({ reqId: 'req-1' }, 'request');
    expect(lines).toHaveLength(3);
    const [first, boom, viaPino] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
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
    // Same key order as pino's own lines.
    expect(Object.keys(first).slice(0, 4)).toEqual(
      Object.keys(viaPino).slice(0, 3).concat('reqId'),
    );
    await app.close();
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
