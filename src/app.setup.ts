import { DynamicModule, INestApplication, Type, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { DestinationStream, Logger as Pino } from 'pino';
import { AppModule } from './app.module';
import { createRootLogger, PinoNestLogger } from './common/http/logging';
import type { HttpPlatform, RequestObserver } from './common/http/platform/http-platform';
import { loadHttpPlatform } from './common/http/platform/load-platform';
import { validationExceptionFactory } from './common/errors/validation';
import { ErrorResponse, OAuthErrorResponse, RateLimitResponse } from './common/http/error.response';
import { finishOpenApiDocument } from './common/openapi/finish-document';
import { DrainState } from './common/lifecycle/drain-state';
import { AppConfig } from './config/app.config';
import { Metrics } from './infra/metrics/metrics';
import { IpBanGate } from './modules/bans/ip-ban-gate';
import type { DatabaseModuleOptions } from './database/database.module';

export interface CreateAppOptions {
  /** Overrides merged over process.env (tests use this instead of mutating the environment). */
  env?: Record<string, string | undefined>;
  database?: DatabaseModuleOptions;
  /** Extra modules (tests mount probe controllers this way). */
  imports?: Array<Type | DynamicModule>;
  /** Where log lines go (default: stdout, asynchronously). Tests capture logs this way. */
  logDestination?: DestinationStream;
  /**
   * The process's root logger, when it already exists (main.ts creates it before anything logs);
   * otherwise one is created on `logDestination`.
   */
  log?: Pino;
}

/** The Nest application as Parley runs it, on either HTTP adapter (`HTTP_ADAPTER`). */
export type ParleyApp = INestApplication;

/**
 * The application, configured and not yet initialised: `await app.init()` (then drive
 * `app.getHttpServer()`, e.g. with supertest) or `await app.listen(port)`. The same on Express and
 * Fastify (common/http/platform).
 */
export async function createApp(options: CreateAppOptions = {}): Promise<ParleyApp> {
  const config = AppConfig.fromEnv({ ...process.env, ...options.env });
  const log = options.log ?? createRootLogger(config, options.logDestination);
  const platform = await loadHttpPlatform(config.httpAdapter);
  const app = await NestFactory.create<ParleyApp>(
    AppModule.forRoot(
      config,
      options.database ?? { runMigrations: true },
      options.imports ?? [],
      platform,
    ),
    platform.createAdapter(config),
    {
      bodyParser: false,
      logger: new PinoNestLogger(log),
      abortOnError: false,
    },
  );
  configureApp(app, platform, config, log);
  return app;
}

/** The request metrics' hook, or null when metrics are off (nothing to time then). */
function requestObserver(metrics: Metrics): RequestObserver | null {
  if (!metrics.enabled) return null;
  return (route, method, status, seconds) => metrics.httpRequest(route, method, status, seconds);
}

/** Everything main.ts and the tests share: the platform's hooks, prefix, pipes, Swagger. */
function configureApp(app: ParleyApp, platform: HttpPlatform, config: AppConfig, log: Pino): void {
  if (!config.ipBans)
    log.warn('IP_BANS=off: banned IP addresses are NOT refused (load benchmarks only)');
  platform.install(app, {
    log,
    drain: app.get(DrainState),
    addressGate: config.ipBans ? app.get(IpBanGate) : null,
    observe: requestObserver(app.get(Metrics)),
  });
  // `{*path}`: path-to-regexp 8's wildcard (Nest 11 warns at every start about the old `(.*)`).
  app.setGlobalPrefix('v1', { exclude: ['docs', 'docs/{*path}'] });
  app.useGlobalPipes(
    new ValidationPipe({
      whitelist: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      exceptionFactory: validationExceptionFactory,
      stopAtFirstError: false,
    }),
  );
  // No app.enableShutdownHooks(): main.ts owns SIGTERM/SIGINT (GracefulShutdown), which drains
  // HTTP before app.close(); tests and the CLI call app.close() themselves.
  setupSwagger(app, config);
}

/** The top of the Swagger UI page: what Parley is and how to make a first call from it. */
const API_DESCRIPTION = [
  'Self-hostable HTTP + JSON API of a Discord-like messaging platform.',
  '',
  '### How to start',
  '1. **Register**: open `POST /v1/auth/register` (Auth), *Try it out*, change the e-mail and ' +
    'username if you like, *Execute*. The response holds a session `token`. (Already have an ' +
    'account? `POST /v1/auth/login`.)',
  '2. **Authorize**: click *Authorize* (top right), paste the token into **sessionToken**, ' +
    '*Authorize*, *Close*. Every route with a lock now sends it.',
  '3. **Call**: `GET /v1/users/@me`, then create a guild (`POST /v1/guilds`), a channel in it, ' +
    'and a webhook in the channel; execute the webhook with its ID and token — no header needed.',
  '4. **Admin API** (`/v1/admin/*`): on the server run `npm run admin:bootstrap -- --email ' +
    '<your e-mail>` once; it prints `Admin adm_<key_id>_<secret>`. Paste that whole value into ' +
    '**adminApiKey**. Each admin route names the ACL its key needs.',
  '',
  '### Conventions',
  '- IDs are snowflakes sent as strings. Timestamps are ISO 8601.',
  '- Authorization header forms: `<session token>`, `Bearer <OAuth2 access token>`, ' +
    '`Bot <application_id>.<secret>`, `Admin adm_<key_id>_<secret>` (admin routes only).',
  '- Errors use the envelope `{code, message, errors?}`; each route lists the codes it answers, ' +
    'by status. The OAuth2 token, introspection and revocation endpoints answer RFC 6749 ' +
    '`{error, error_description}`.',
  '- Rate limits: `X-RateLimit-*` headers on every response; 429 carries `retry_after` (seconds).',
].join('\n');

export function buildOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Parley API')
    .setDescription(API_DESCRIPTION)
    .setVersion('1.0.0')
    .setLicense('AGPL-3.0', 'https://www.gnu.org/licenses/agpl-3.0.html')
    .addServer(config.apiUrl.replace(/\/v1$/, ''), 'This instance')
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        description:
          'Admin API key, for the `/v1/admin/*` routes. Paste the whole `Authorization` header ' +
          'value into **Value**: the word `Admin`, one space, then the key — ' +
          '`Admin adm_<key_id>_<secret>` (this scheme sends the value exactly as typed and adds ' +
          'no prefix). The key is printed by `npm run admin:bootstrap -- --email <email>` or ' +
          'returned once by `POST /v1/admin/api-keys`.',
      },
      'adminApiKey',
    )
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        description:
          'User session token: paste the `token` that `POST /v1/auth/register` or ' +
          '`POST /v1/auth/login` answered, as is (no `Bearer ` prefix).',
      },
      'sessionToken',
    )
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        description:
          'Bot token of an OAuth2 application: paste `Bot <application_id>.<secret>` (the word ' +
          '`Bot`, one space, then the token from `POST /v1/oauth2/applications` or ' +
          '`…/bot/reset-token`).',
      },
      'botToken',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description:
          'OAuth2 access token from `POST /v1/oauth2/token`: paste the token only (Swagger UI ' +
          'adds `Bearer `). Routes accept it when the token carries the scopes they name.',
      },
      'bearer',
    )
    .addBasicAuth(
      {
        type: 'http',
        scheme: 'basic',
        description:
          'OAuth2 client credentials for the token, introspection and revocation endpoints: ' +
          'username = the application ID (`client_id`), password = its client secret. Leave ' +
          '`client_id`/`client_secret` out of the body when you use this.',
      },
      'clientBasic',
    );
  const doc = SwaggerModule.createDocument(app, builder.build(), {
    operationIdFactory: (controllerKey, methodKey) => `${controllerKey}_${methodKey}`,
    extraModels: [ErrorResponse, RateLimitResponse, OAuthErrorResponse],
  });
  return finishOpenApiDocument(doc);
}

function setupSwagger(app: ParleyApp, config: AppConfig): void {
  let doc: OpenAPIObject | undefined;
  SwaggerModule.setup('docs', app, () => (doc ??= buildOpenApiDocument(app, config)), {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
    customSiteTitle: 'Parley API',
    swaggerOptions: { persistAuthorization: true },
  });
}
