import './compile-cache';
import './load-env';
import './heap-tuning';
import { Logger } from '@nestjs/common';
import type { Server } from 'node:http';
import type { Logger as Pino } from 'pino';
import { createRootLogger, PinoNestLogger } from './common/http/logging';
import { DrainState } from './common/lifecycle/drain-state';
import { exitOnSignalUntilListening, GracefulShutdown } from './common/lifecycle/graceful-shutdown';
import { waitForDatabase } from './common/lifecycle/wait-for-database';
import { AppConfig } from './config/app.config';
import { prestartEmbedded } from './database/embedded-start';

/** The process's one logger, once the configuration is known. */
let log: Pino | undefined;

async function bootstrap(): Promise<void> {
  // Before the app's modules are loaded, so that http, pg and ioredis are instrumented; never
  // loaded without an endpoint (tracing.ts).
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    (await import('./tracing')).startTracing(process.env);
  }
  let config: AppConfig;
  try {
    config = AppConfig.fromEnv(process.env);
  } catch (e) {
    // A bad value stops the boot with a message naming the variable.
    console.error((e as Error).message);
    process.exit(1);
  }
  // One logger from the first line: the app's own (createApp gets it), also behind Nest's static
  // `Logger`, which the embedded start and every module log through — no line of Nest's
  // ConsoleLogger, JSON (or pino-pretty's lines) from the start.
  const rootLog = createRootLogger(config);
  log = rootLog;
  Logger.overrideLogger(new PinoNestLogger(rootLog));
  const bootLog = rootLog.child({ context: 'Bootstrap' });
  const stopEarlyExit = exitOnSignalUntilListening((m) => bootLog.info(m));
  // An API started before its database (compose, Kubernetes) waits for it; tests fail fast.
  if (config.database.url && config.env !== 'test') {
    await waitForDatabase(config.database.url, { log: bootLog });
  }
  // The embedded database starts while the application's modules load (they are imported only
  // now, not at the top of this file).
  if (!config.database.url) {
    await prestartEmbedded(config, (err) => {
      // The reason, once, on one line (pino flushes its buffered lines on exit).
      rootLog.fatal(
        { context: 'Database' },
        `the embedded PostgreSQL did not start: ${err.message}`,
      );
      process.exit(1);
    });
  }
  const { createApp } = await import('./app.setup');
  const app = await createApp({ log: rootLog });
  await app.listen(config.port, '0.0.0.0');
  const server = app.getHttpServer() as Server;
  // Keep-alive longer than typical load-balancer idle timeouts.
  server.keepAliveTimeout = 65_000;
  stopEarlyExit();
  new GracefulShutdown(app, server, app.get(DrainState), config.shutdown).listen();
  new Logger('Parley').log(
    `listening on ${config.publicUrl} (Swagger UI: ${config.publicUrl}/docs; HTTP adapter: ` +
      `${app.getHttpAdapter().getType()})`,
  );
}

bootstrap().catch((err: unknown) => {
  if (log) log.fatal({ context: 'Bootstrap', err }, 'the server did not start');
  else console.error(err);
  process.exit(1);
});
