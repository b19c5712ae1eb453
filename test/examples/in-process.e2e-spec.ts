/**
 * How a team tests its Parley deployment or extension in-process (README, "Testing your
 * deployment in-process"): createApp() + app.init() + supertest on app.getHttpServer(). The same
 * code on both HTTP adapters; CI runs it on each (TEST_HTTP_ADAPTER).
 */
import { Controller, Get, type INestApplication, Module } from '@nestjs/common';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createApp } from '../../src/app.setup';
import { Public } from '../../src/common/auth/auth.decorator';
import { testHttpAdapter } from '../helpers/adapter';

/** An extension: the team's own route, next to Parley's (every route declares who may call it). */
@Controller('acme')
class AcmeController {
  @Get('status')
  @Public()
  status(): { ok: boolean } {
    return { ok: true };
  }
}

@Module({ controllers: [AcmeController] })
class AcmeModule {}

describe('a deployment tested in-process with supertest', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp({
      env: {
        HTTP_ADAPTER: testHttpAdapter(),
        NODE_ENV: 'test',
        DATABASE_URL: process.env.PARLEY_TEST_DATABASE_URL,
        DATA_DIR: mkdtempSync(join(tmpdir(), 'parley-example-')),
        SECRET_KEY: 'c'.repeat(64),
        PUBLIC_URL: 'http://parley.test',
        LOG_LEVEL: 'silent',
      },
      imports: [AcmeModule],
    });
    // A conventional middleware: (req, res, next) on Node's request and response, either adapter.
    app.use((_req: unknown, res: { setHeader(n: string, v: string): void }, next: () => void) => {
      res.setHeader('X-Team', 'acme');
      next();
    });
    await app.init();
  });

  afterAll(() => app.close());

  it('registers an account and reads it back', async () => {
    const server = app.getHttpServer();
    const email = `example-${Date.now().toString(36)}@example.com`;
    const registered = await request(server)
      .post('/v1/auth/register')
      .send({
        email,
        username: `ex_${Date.now().toString(36)}`,
        password: 'correct-horse-battery',
        date_of_birth: '1990-01-01',
        consent: true,
      })
      .expect(200);
    const me = await request(server)
      .get('/v1/users/@me')
      .set('Authorization', registered.body.token as string)
      .expect(200);
    expect(me.body).toMatchObject({ id: registered.body.user_id, email });
    expect(me.headers['x-team']).toBe('acme');
  });

  it("serves the team's own routes with Parley's envelope and pipeline", async () => {
    const server = app.getHttpServer();
    await request(server).get('/v1/acme/status').expect(200, { ok: true });
    const missing = await request(server).get('/v1/acme/nothing').expect(404);
    expect(missing.body).toMatchObject({ code: 'NOT_FOUND' });
    expect(app.getHttpAdapter().getType()).toBe(testHttpAdapter());
  });
});
