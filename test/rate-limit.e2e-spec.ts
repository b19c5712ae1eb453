import type { ParleyApp } from '../src/app.setup';
import Redis from 'ioredis';
import { createTestApp, http, RELAXED_LIMITS } from './helpers/app';
import { ProbeModule } from './helpers/probe.module';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function expect429(
  res: { status: number; body: Record<string, unknown>; headers: Record<string, string> },
  global: boolean,
) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    code: 'RATE_LIMITED',
    message: 'You are being rate limited.',
    retry_after: expect.any(Number),
    global,
  });
  expect(res.body.retry_after as number).toBeGreaterThan(0);
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  // As Discord: the global header only when the global limit was hit; the scope on every 429.
  expect(res.headers['x-ratelimit-global']).toBe(global ? 'true' : undefined);
  expect(res.headers['x-ratelimit-scope']).toBe(global ? 'global' : 'user');
  expect(Number(res.headers['x-ratelimit-reset-after'])).toBeGreaterThan(0);
  expect(res.headers['x-ratelimit-remaining']).toBe('0');
  const now = Math.floor(Date.now() / 1000);
  expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(now);
}

describe('rate limiting (memory storage)', () => {
  let app: ParleyApp;
  beforeAll(async () => {
    app = await createTestApp({
      imports: [ProbeModule],
      env: { RATE_LIMIT_OVERRIDES: `${RELAXED_LIMITS},discovery=3/60s` },
    });
  });
  afterAll(() => app.close());

  it('spends a named bucket, then answers 429 with the exact body and headers', async () => {
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      const ok = await http(app).get('/v1/.well-known/service');
      expect(ok.status).toBe(200);
      expect(ok.headers['x-ratelimit-limit']).toBe('3');
      remaining.push(Number(ok.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual([2, 1, 0]);
    const limited = await http(app).get('/v1/.well-known/service');
    expect429(limited, false);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(50);
  });

  it('limits every identity globally, flagged global:true', async () => {
    const strict = await createTestApp({
      imports: [ProbeModule],
      env: { RATE_LIMIT_OVERRIDES: `${RELAXED_LIMITS},global=5/10s` },
    });
    try {
      // Validation-failing requests still count: the throttler runs before the handler.
      const responses = [];
      for (let i = 0; i < 6; i++)
        responses.push(await http(strict).post('/v1/__probe/echo').send({}));
      expect(responses.slice(0, 5).map((r) => r.status)).toEqual([400, 400, 400, 400, 400]);
      expect429(responses[5], true);
    } finally {
      await strict.close();
    }
  });

  it('is off with RATE_LIMITS=off (benchmarks only)', async () => {
    const off = await createTestApp({
      env: { RATE_LIMITS: 'off', RATE_LIMIT_OVERRIDES: 'discovery=1/60s' },
    });
    try {
      for (let i = 0; i < 3; i++)
        expect((await http(off).get('/v1/.well-known/service')).status).toBe(200);
    } finally {
      await off.close();
    }
  });
});

describe('rate limiting (Redis storage shared by two instances)', () => {
  let a: ParleyApp;
  let b: ParleyApp;
  let redis: Redis;
  const ip = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: true });
    await redis.connect().catch((e: Error) => {
      throw new Error(`these tests need Redis at ${REDIS_URL} (set TEST_REDIS_URL): ${e.message}`);
    });
    const env = {
      REDIS_URL,
      TRUST_PROXY: 'on',
      RATE_LIMIT_OVERRIDES: `${RELAXED_LIMITS},discovery=4/60s`,
    };
    a = await createTestApp({ env });
    b = await createTestApp({ env });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.quit();
  });

  it('keeps the counters in Redis', async () => {
    const res = await http(a).get('/v1/.well-known/service').set('X-Forwarded-For', `${ip}`);
    expect(res.status).toBe(200);
    const keys = await redis.keys(`*rl:discovery:ip:${ip}*`);
    expect(keys.length).toBeGreaterThan(0);
  });

  it('shares one budget across instances', async () => {
    // 1 request already spent on `a` above: 3 more across both, then both refuse.
    expect((await http(b).get('/v1/.well-known/service').set('X-Forwarded-For', ip)).status).toBe(
      200,
    );
    expect((await http(a).get('/v1/.well-known/service').set('X-Forwarded-For', ip)).status).toBe(
      200,
    );
    const last = await http(b).get('/v1/.well-known/service').set('X-Forwarded-For', ip);
    expect(last.status).toBe(200);
    expect(last.headers['x-ratelimit-remaining']).toBe('0');
    expect429(await http(a).get('/v1/.well-known/service').set('X-Forwarded-For', ip), false);
    expect429(await http(b).get('/v1/.well-known/service').set('X-Forwarded-For', ip), false);
    // Another client is unaffected.
    const other = await http(b)
      .get('/v1/.well-known/service')
      .set(
        'X-Forwarded-For',
        `${ip.split('.').slice(0, 3).join('.')}.${(Number(ip.split('.')[3]) + 1) % 256}`,
      );
    expect(other.status).toBe(200);
  });
});
