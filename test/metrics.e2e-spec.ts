import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import type { ParleyApp } from '../src/app.setup';
import { Metrics } from '../src/infra/metrics/metrics';
import type { PrometheusMetrics } from '../src/infra/metrics/prometheus-metrics';
import { createTestApp, http, RELAXED_LIMITS } from './helpers/app';
import { registerUser, type TestUser } from './helpers/factories';
import { GatewayClient } from './helpers/gateway-client';
import { createGuild, createWebhook } from './helpers/guild-factories';
import { send } from './helpers/http-client';
import { serverPort } from './helpers/ports';

type Families = Map<string, PrometheusFamily>;

/** The value of the sample of `name` whose labels include `labels` (0 when absent). */
function sample(families: Families, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name);
  const match = family?.metrics.find((m) =>
    Object.entries(labels).every(([k, v]) => m.labels?.[k] === v),
  );
  if (!match) return 0;
  return Number(match.value ?? match.count);
}

/**
 * The Prometheus endpoint, scraped as Prometheus would — on its own loopback listener, parsed by a
 * parser of the exposition format — before and after real traffic.
 */
describe('Prometheus metrics', () => {
  let app: ParleyApp;
  let apiPort: number;
  let metricsPort: number;
  let user: TestUser;

  const scrape = async (): Promise<Families> => {
    const res = await send({ port: metricsPort, path: '/metrics' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return new Map(parsePrometheusTextFormat(res.text).map((f) => [f.name, f]));
  };

  beforeAll(async () => {
    app = await createTestApp({
      env: {
        METRICS_PORT: '0',
        // One login attempt a minute, so the second is refused.
        RATE_LIMIT_OVERRIDES: `${RELAXED_LIMITS.replace(/auth:login=[^,]*,?/, '')},auth:login=1/60s`,
      },
    });
    apiPort = await serverPort();
    await app.listen(apiPort, '127.0.0.1');
    const metrics = app.get<Metrics, PrometheusMetrics>(Metrics);
    expect(metrics.enabled).toBe(true);
    metricsPort = metrics.address()!.port;
    user = await registerUser(app);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('serves the families on its own loopback listener, never on the API port', async () => {
    const families = await scrape();
    for (const name of [
      'parley_http_requests_total',
      'parley_http_request_duration_seconds',
      'parley_db_pool_connections',
      'parley_group_commit_batch_size',
      'parley_job_queue_depth',
      'parley_job_failures_total',
      'parley_rate_limit_rejections_total',
      'parley_credential_cache_requests_total',
      'parley_gateway_connections',
      'parley_gateway_dispatches_total',
      'parley_gateway_resumes_total',
      'parley_gateway_closes_total',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect({ name, present: families.has(name) }).toEqual({ name, present: true });
    }
    expect(app.get<Metrics, PrometheusMetrics>(Metrics).address()!.address).toBe('127.0.0.1');
    const onApi = await send({ port: apiPort, path: '/metrics' });
    expect(onApi.status).toBe(404);
    const other = await send({ port: metricsPort, path: '/other' });
    expect(other.status).toBe(404);
  });

  it('counts requests by route template, method and status, with their latency', async () => {
    const before = await scrape();
    const route = { route: '/v1/users/@me', method: 'GET', status: '200' };
    const unauthorized = { route: '/v1/users/@me', method: 'GET', status: '401' };
    for (let i = 0; i < 3; i++) {
      expect((await http(app).get('/v1/users/@me').set('Authorization', user.token)).status).toBe(
        200,
      );
    }
    expect((await http(app).get('/v1/users/@me')).status).toBe(401);
    expect((await http(app).get('/v1/no/such/route')).status).toBe(404);
    const after = await scrape();
    expect(sample(after, 'parley_http_requests_total', route)).toBe(
      sample(before, 'parley_http_requests_total', route) + 3,
    );
    expect(sample(after, 'parley_http_requests_total', unauthorized)).toBe(
      sample(before, 'parley_http_requests_total', unauthorized) + 1,
    );
    const unmatched = { route: 'unmatched', method: 'GET', status: '404' };
    expect(sample(after, 'parley_http_requests_total', unmatched)).toBe(
      sample(before, 'parley_http_requests_total', unmatched) + 1,
    );
    // No URL ever becomes a label value: only templates.
    const routes = after.get('parley_http_requests_total')!.metrics.map((m) => m.labels!.route);
    expect(routes.filter((r) => r !== 'unmatched' && !r.startsWith('/v1/'))).toEqual([]);
    expect(routes.some((r) => r.includes(user.userId))).toBe(false);
    // The parser flattens labelled histograms (a limit of parse-prometheus-text-format): their
    // series are read from the exposition text itself.
    const text = (await send({ port: metricsPort, path: '/metrics' })).text;
    const series = (suffix: string, labels: string) =>
      Number(
        new RegExp(
          `^parley_http_request_duration_seconds_${suffix}\\{${labels.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\} (\\S+)$`,
          'm',
        ).exec(text)?.[1],
      );
    const me = 'route="/v1/users/@me",method="GET"';
    expect(series('count', me)).toBeGreaterThanOrEqual(4);
    expect(series('sum', me)).toBeGreaterThan(0);
    expect(series('bucket', `le="+Inf",${me}`)).toBe(series('count', me));
    expect(series('bucket', `le="10",${me}`)).toBe(series('count', me));
  });

  it('counts credential cache hits and misses, and rate-limit rejections by bucket', async () => {
    const before = await scrape();
    const other = await registerUser(app);
    await http(app).get('/v1/users/@me').set('Authorization', other.token);
    await http(app).get('/v1/users/@me').set('Authorization', other.token);
    const login = () =>
      http(app).post('/v1/auth/login').send({ email: other.email, password: other.password });
    expect((await login()).status).toBe(200);
    expect((await login()).status).toBe(429);
    const after = await scrape();
    const cache = 'parley_credential_cache_requests_total';
    expect(sample(after, cache, { result: 'miss' })).toBeGreaterThan(
      sample(before, cache, { result: 'miss' }),
    );
    expect(sample(after, cache, { result: 'hit' })).toBeGreaterThan(
      sample(before, cache, { result: 'hit' }),
    );
    expect(sample(after, 'parley_rate_limit_rejections_total', { bucket: 'auth:login' })).toBe(
      sample(before, 'parley_rate_limit_rejections_total', { bucket: 'auth:login' }) + 1,
    );
  });

  it('reports group-commit batches, the database pool and the job queues', async () => {
    const guild = await createGuild(app, user.token);
    const hook = await createWebhook(app, user.token, guild.channelId);
    const before = await scrape();
    const beforeText = (await send({ port: metricsPort, path: '/metrics' })).text;
    const posts = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        http(app)
          .post(`/v1/webhooks/${hook.id}/${hook.token}?wait=true`)
          .send({ content: `batched ${i}` }),
      ),
    );
    expect(posts.map((p) => p.status)).toEqual(posts.map(() => 200));
    const after = await scrape();
    const afterText = (await send({ port: metricsPort, path: '/metrics' })).text;
    const batchSum = (families: Families, text: string) => {
      expect(families.has('parley_group_commit_batch_size')).toBe(true);
      return Number(
        /^parley_group_commit_batch_size_sum\{writer="webhook_messages"\} (\S+)$/m.exec(
          text,
        )?.[1] ?? '0',
      );
    };
    expect(batchSum(after, afterText) - batchSum(before, beforeText)).toBe(20);
    expect(sample(after, 'parley_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    expect(
      after
        .get('parley_db_pool_connections')!
        .metrics.map((m) => m.labels!.state)
        .sort(),
    ).toEqual(['idle', 'total', 'waiting']);
    const queues = after.get('parley_job_queue_depth')!.metrics.map((m) => m.labels!.queue);
    expect(queues).toContain('archive-build');
  });

  it('follows gateway connections, dispatches and closes by code', async () => {
    const before = await scrape();
    const client = await GatewayClient.connect(`ws://127.0.0.1:${apiPort}/gateway`);
    await client.next((f) => f.op === 10);
    client.identify(user.token);
    await client.dispatch('READY');
    const open = await scrape();
    expect(sample(open, 'parley_gateway_connections')).toBe(
      sample(before, 'parley_gateway_connections') + 1,
    );
    expect(sample(open, 'parley_gateway_dispatches_total')).toBeGreaterThan(
      sample(before, 'parley_gateway_dispatches_total'),
    );
    client.ws.close(4000);
    await client.closed;
    await new Promise((r) => setTimeout(r, 100));
    const closed = await scrape();
    expect(sample(closed, 'parley_gateway_connections')).toBe(
      sample(before, 'parley_gateway_connections'),
    );
    expect(sample(closed, 'parley_gateway_closes_total', { code: '4000' })).toBe(
      sample(before, 'parley_gateway_closes_total', { code: '4000' }) + 1,
    );
  });
});
