import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { RELAXED_LIMITS, TEST_SECRET_KEY } from './helpers/app';
import { send } from './helpers/http-client';
import { serverPort } from './helpers/ports';
import { ensureProductionBuild, ServerProcess } from './helpers/server-process';

/** A span as OTLP/HTTP's JSON encoding carries it (the fields the test reads). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

const attr = (span: OtlpSpan, key: string): unknown => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
};

/**
 * OpenTelemetry, switched on by the standard variables, on the production build: the spans reach
 * an OTLP/HTTP receiver on loopback (this test's), the request span carries its route template
 * and status with the PostgreSQL queries as its children, and the request log line carries the
 * trace id.
 */
describe('OpenTelemetry traces', () => {
  let receiver: Server;
  let proc: ServerProcess;
  const spans: OtlpSpan[] = [];
  const services = new Set<string>();

  beforeAll(async () => {
    ensureProductionBuild();
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        if (req.url === '/v1/traces' && req.headers['content-type'] === 'application/json') {
          const payload = JSON.parse(body.toString('utf8')) as {
            resourceSpans: Array<{
              resource: { attributes: OtlpSpan['attributes'] };
              scopeSpans: Array<{ spans: OtlpSpan[] }>;
            }>;
          };
          for (const rs of payload.resourceSpans) {
            const name = rs.resource.attributes.find((a) => a.key === 'service.name');
            if (name) services.add(String(Object.values(name.value)[0]));
            for (const ss of rs.scopeSpans) spans.push(...ss.spans);
          }
        }
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = await serverPort();
    proc = ServerProcess.start(
      {
        NODE_ENV: 'production',
        DATABASE_URL: process.env.PARLEY_TEST_DATABASE_URL!,
        DATABASE_POOL_SIZE: '4',
        // Rate-limit counters in Redis: every request makes Redis calls inside its trace.
        REDIS_URL: process.env.TEST_REDIS_URL!,
        DATA_DIR: mkdtempSync(join(tmpdir(), 'parley-otel-')),
        SECRET_KEY: TEST_SECRET_KEY,
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        RATE_LIMIT_OVERRIDES: RELAXED_LIMITS,
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
        OTEL_SERVICE_NAME: 'parley-under-test',
      },
      port,
    );
    await proc.waitUntilReady(60_000);
  }, 120_000);

  afterAll(async () => {
    await proc?.stop();
    await new Promise((r) => receiver?.close(r));
  });

  it('exports the request span with its route and status, its queries as children, and logs its trace id', async () => {
    const register = await send({
      port: proc.port,
      method: 'POST',
      path: '/v1/auth/register',
      body: {
        consent: true,
        date_of_birth: '1990-01-01',
        email: `traced${Date.now()}@example.com`,
        password: 'correct-horse-battery',
        username: `traced_${Date.now().toString(36)}`,
      },
    });
    expect(register.status).toBe(200);
    const me = await send({
      port: proc.port,
      path: '/v1/users/@me',
      headers: { Authorization: register.json.token as string },
    });
    expect(me.status).toBe(200);

    const deadline = Date.now() + 15_000;
    const isMe = (s: OtlpSpan) => s.name === 'GET /v1/users/@me';
    while (!spans.some(isMe) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(services).toEqual(new Set(['parley-under-test']));

    const server = spans.find((s) => s.name === 'POST /v1/auth/register')!;
    expect(server).toBeDefined();
    expect(server.kind).toBe(2); // SERVER
    expect(attr(server, 'http.route')).toBe('/v1/auth/register');
    expect(Number(attr(server, 'http.response.status_code'))).toBe(200);
    const queries = spans.filter(
      (s) =>
        s.traceId === server.traceId &&
        (attr(s, 'db.system.name') ?? attr(s, 'db.system')) === 'postgresql',
    );
    expect(queries.length).toBeGreaterThan(0);
    // Each query belongs to the request: its parent chain ends at the request span.
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    for (const q of queries) {
      let parent = q.parentSpanId ? byId.get(q.parentSpanId) : undefined;
      while (parent && parent !== server) {
        parent = parent.parentSpanId ? byId.get(parent.parentSpanId) : undefined;
      }
      expect(parent).toBe(server);
    }
    // …and its Redis commands (the rate-limit counters), children of the same trace.
    const redisSpans = spans.filter(
      (s) =>
        s.traceId === server.traceId &&
        (attr(s, 'db.system.name') ?? attr(s, 'db.system')) === 'redis',
    );
    expect(redisSpans.length).toBeGreaterThan(0);
    // Health probes are not traced.
    const paths = spans.map((s) => (attr(s, 'url.path') as string | undefined) ?? '');
    expect(paths.filter((p) => p.includes('/health'))).toEqual([]);
    expect(paths).toContain('/v1/auth/register');

    const line = proc.lines.find((l) => l.msg === 'request' && l.url === '/v1/auth/register');
    expect(line?.trace_id).toBe(server.traceId);
    const meSpan = spans.find(isMe)!;
    expect(attr(meSpan, 'http.route')).toBe('/v1/users/@me');
  }, 60_000);

  it('loads nothing of OpenTelemetry (nor prom-client, nor the AWS SDK) when they are not configured', () => {
    // The whole application graph, as main.ts imports it, in a fresh process.
    const loaded = execFileSync(
      process.execPath,
      [
        '-e',
        "require('./dist/src/app.setup'); console.log(JSON.stringify(Object.keys(require.cache)" +
          ".filter((k) => /@opentelemetry|prom-client|@aws-sdk/.test(k)).map((k) => k.split('node_modules/')[1])))",
      ],
      { cwd: join(__dirname, '..'), encoding: 'utf8', env: { PATH: process.env.PATH } },
    );
    expect(JSON.parse(loaded)).toEqual([]);
  });
});
