import {
  CanActivate,
  Controller,
  ExecutionContext,
  Get,
  HttpCode,
  Injectable,
  type INestApplication,
  Module,
  StreamableFile,
} from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import pino from 'pino';
import type { AppConfig } from '../../../config/app.config';
import type { ParleyRequest } from '../../auth/caller';
import { DrainState } from '../../lifecycle/drain-state';
import { RoutePolicies } from '../route-policies';
import { NotLogged, RedactInLogs } from '../route-policy';
import type { HttpAdapterName } from './http-platform';
import { loadHttpPlatform } from './load-platform';

@Controller()
class ProbeController {
  @Get('webhooks/:id/:token')
  @RedactInLogs({ params: ['token'] })
  @HttpCode(204)
  webhook(): void {}

  @Get('boom')
  @HttpCode(500)
  boom(): object {
    return {};
  }

  @Get('health/live')
  @NotLogged()
  live(): object {
    return { ok: true };
  }

  /** A download whose stream ends a while after its last byte (a file read hitting EOF late). */
  @Get('archives/:id/download')
  download(): StreamableFile {
    const body = new Readable({ read() {} });
    body.push('zip!');
    setTimeout(() => body.push(null), 100);
    return new StreamableFile(body, { length: 4 });
  }
}

/** What the caller guard does on a Parley route: the route's policy on the request. */
@Injectable()
class PolicyGuard implements CanActivate {
  constructor(private readonly policies: RoutePolicies) {}

  canActivate(context: ExecutionContext): boolean {
    context.switchToHttp().getRequest<ParleyRequest>().routePolicy = this.policies.of(context);
    return true;
  }
}

@Module({
  controllers: [ProbeController],
  providers: [RoutePolicies, { provide: APP_GUARD, useClass: PolicyGuard }],
})
class ProbeModule {}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function fetchText(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, headers, agent: false })
      .on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      })
      .on('error', reject);
  });
}

describe.each<HttpAdapterName>(['express', 'fastify'])('the %s platform', (name) => {
  let app: INestApplication;
  let port: number;
  let lines: string[];

  async function serve(level: string): Promise<void> {
    lines = [];
    const log = pino(
      { level, base: { pid: process.pid } },
      { write: (l: string) => lines.push(l) },
    );
    const platform = await loadHttpPlatform(name);
    app = await NestFactory.create(
      { module: ProbeModule, providers: [DrainState] },
      platform.createAdapter({ trustProxy: false } as AppConfig),
      { logger: false, bodyParser: false },
    );
    platform.install(app, { log, drain: app.get(DrainState), addressGate: null, observe: null });
    app.setGlobalPrefix('v1');
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
  }

  afterEach(() => app?.close());

  it('writes one JSON line per request, as pino would, with the secret redacted', async () => {
    await serve('info');
    const res = await fetchText(port, '/v1/webhooks/1/s3cr3t?q=%22"\\', {
      'x-request-id': 'req-1',
    });
    expect(res.status).toBe(204);
    expect(res.headers['x-request-id']).toBe('req-1');
    await fetchText(port, '/v1/boom');
    await fetchText(port, '/v1/health/live');
    // Unrouted: the words of the app's routes are known, nothing else.
    expect((await fetchText(port, '/v1/webhooks/vgat9hcj')).status).toBe(404);
    const viaPino = pino({ base: { pid: process.pid } }, { write: (l: string) => lines.push(l) });
    await new Promise((r) => setTimeout(r, 20)); // Express writes its line on `close`
    viaPino.info({ reqId: 'req-1' }, 'request');
    expect(lines).toHaveLength(4);
    const [first, boom, unrouted, pinoLine] = lines.map(
      (l) => JSON.parse(l) as Record<string, unknown>,
    );
    expect(first).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: process.pid,
      reqId: 'req-1',
      method: 'GET',
      url: '/v1/webhooks/1/[redacted]?q=%22"\\', // the quote and backslash needed escaping
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
      Object.keys(pinoLine).slice(0, 3).concat('reqId'),
    );
  });

  it('logs a streamed response whose client hung up before the stream ended', async () => {
    await serve('info');
    // The client has its 4 bytes and closes the connection: the response never finishes.
    const res = await fetchText(port, '/v1/archives/7/download?signature=s1g');
    expect(res.text).toBe('zip!');
    await new Promise((r) => setTimeout(r, 200));
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({
        status: 200,
        url: '/v1/archives/7/download?signature=[redacted]',
        msg: 'request',
      }),
    ]);
  });

  it('writes nothing below info, and still echoes a request id', async () => {
    await serve('warn');
    expect((await fetchText(port, '/v1/boom')).headers['x-request-id']).toEqual(expect.any(String));
    expect(lines).toEqual([]);
  });
});
